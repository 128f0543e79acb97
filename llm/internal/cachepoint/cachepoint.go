// Package cachepoint says where a conversation's cache breakpoints go, for
// the provider that caches only where it is asked to (Anthropic) and for
// the simulator that imitates it in process, so that both put them in the
// same places.
//
// The head (tools and system prompt) carries one: it is the same on every
// call of every run with the same set-up, so conversations share it. Once
// the conversation has an assistant turn, two more roll with it: on the
// latest message, so that this call writes the whole prompt, and on the
// message the previous call ended with, where that call wrote it, so that
// this call reads it back exactly. The provider looks back only about 20
// content blocks from a breakpoint for an earlier entry; a step with many
// parallel tool calls adds more than that, and without the second
// breakpoint its next call would find nothing. Three breakpoints stay
// within the provider's limit of four.
//
// A prompt without an assistant turn (a first call, or a one-shot call
// such as the judge's) gets the head breakpoint only: its last message is
// read again only if the conversation goes on, and a cache write costs a
// quarter more than plain input.
package cachepoint

import "github.com/nightshift-dev/nightshift/llm"

// Max is the most breakpoints the provider accepts in one request.
const Max = 4

// Rolling returns the indices of the messages that carry the rolling
// breakpoints, in order: none before the first assistant turn; else the
// message before the latest assistant message (what the previous call
// ended with) when there is one, and the last message.
func Rolling(msgs []llm.Message) []int {
	last := len(msgs) - 1
	asst := -1
	for i := last; i >= 0; i-- {
		if msgs[i].Role == llm.Assistant {
			asst = i
			break
		}
	}
	if asst < 0 {
		return nil
	}
	if prev := asst - 1; prev >= 0 && prev != last {
		return []int{prev, last}
	}
	return []int{last}
}
