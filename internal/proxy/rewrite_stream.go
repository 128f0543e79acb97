package proxy

import (
	"bytes"
	"encoding/json"
)

// stream rewrites a whole stream's events; an event it leaves alone is
// sent as it came.
func (rw *rewriter) stream(wire string, events []*sseEvent) ([]*sseEvent, error) {
	var out []*sseEvent
	var ok bool
	if wire == "openai" {
		out, ok = rw.openaiStream(events)
	} else {
		out, ok = rw.anthropicStream(events)
	}
	if !ok {
		return nil, errNotApplied
	}
	return out, nil
}

// anthropicBlock is what the stream says of one content block.
type anthropicBlock struct {
	kind   string // text, tool_use, thinking, ...
	length int
}

// eventType is an Anthropic event's type.
func eventType(e *sseEvent) string {
	t, _ := e.obj["type"].(string)
	return t
}

func eventIndex(e *sseEvent) int {
	n, ok := e.obj["index"].(json.Number)
	if !ok {
		return -1
	}
	i, err := n.Int64()
	if err != nil {
		return -1
	}
	return int(i)
}

// deltaText is the text a content delta carries (text or partial JSON)
// and the field it is in.
func deltaText(e *sseEvent) (string, string) {
	d, _ := e.obj["delta"].(map[string]any)
	switch d["type"] {
	case "text_delta":
		s, _ := d["text"].(string)
		return s, "text"
	case "input_json_delta":
		s, _ := d["partial_json"].(string)
		return s, "partial_json"
	}
	return "", ""
}

func setDelta(e *sseEvent, field, s string) {
	d, _ := e.obj["delta"].(map[string]any)
	d[field] = s
	e.changed = true
}

// anthropicStream rewrites a Messages API stream.
func (rw *rewriter) anthropicStream(events []*sseEvent) ([]*sseEvent, bool) {
	var blocks []anthropicBlock
	for _, e := range events {
		switch eventType(e) {
		case "content_block_start":
			cb, _ := e.obj["content_block"].(map[string]any)
			k, _ := cb["type"].(string)
			for len(blocks) <= eventIndex(e) {
				blocks = append(blocks, anthropicBlock{})
			}
			if i := eventIndex(e); i >= 0 {
				blocks[i].kind = k
			}
		case "content_block_delta":
			if i := eventIndex(e); i >= 0 && i < len(blocks) {
				s, _ := deltaText(e)
				blocks[i].length += len(s)
			}
		}
	}
	isBlock := func(e *sseEvent) bool {
		switch eventType(e) {
		case "content_block_start", "content_block_delta", "content_block_stop":
			return true
		}
		return false
	}
	setStop := func(e *sseEvent, reason string) {
		d, _ := e.obj["delta"].(map[string]any)
		if d != nil {
			d["stop_reason"], d["stop_sequence"] = reason, nil
			e.changed = true
		}
	}
	var out []*sseEvent
	switch {
	case rw.f.Stop != "":
		lengths := make([]int, len(blocks))
		for i, b := range blocks {
			lengths[i] = b.length
		}
		p := planCut(lengths)
		used := 0
		for _, e := range events {
			if isBlock(e) {
				i := eventIndex(e)
				switch {
				case i < p.block:
				case i == p.block && blocks[i].kind == "text" && p.at > 0:
					if eventType(e) == "content_block_delta" {
						s, field := deltaText(e)
						if used >= p.at {
							continue
						}
						if used+len(s) > p.at {
							setDelta(e, field, cutText(s, p.at-used))
						}
						used += len(s)
					}
				default:
					continue
				}
			}
			if eventType(e) == "message_delta" {
				setStop(e, "max_tokens")
			}
			out = append(out, e)
		}
		return out, true
	case rw.f.Empty:
		for _, e := range events {
			if isBlock(e) {
				continue
			}
			if eventType(e) == "message_delta" {
				setStop(e, "end_turn")
			}
			out = append(out, e)
		}
		return out, true
	}
	changed := false
	// The tool blocks' input so far, to cut each at its middle.
	fed := map[int]int{}
	rawSent := map[int]bool{}
	for _, e := range events {
		i := eventIndex(e)
		isTool := i >= 0 && i < len(blocks) && blocks[i].kind == "tool_use"
		if !isBlock(e) || !isTool {
			out = append(out, e)
			continue
		}
		changed = true
		switch eventType(e) {
		case "content_block_start":
			if rw.rename() {
				cb, _ := e.obj["content_block"].(map[string]any)
				name, _ := cb["name"].(string)
				cb["name"] = rw.nameFor(name)
				e.changed = true
			}
		case "content_block_delta":
			if !rw.input() {
				break
			}
			s, field := deltaText(e)
			if rw.f.RawInput != "" {
				if rawSent[i] {
					continue
				}
				rawSent[i] = true
				setDelta(e, field, rw.f.RawInput)
				break
			}
			keep := blocks[i].length / 2
			if fed[i] >= keep {
				fed[i] += len(s)
				continue
			}
			if fed[i]+len(s) > keep {
				setDelta(e, field, cutText(s, keep-fed[i]))
			}
			fed[i] += len(s)
		case "content_block_stop":
			if rw.f.RawInput != "" && !rawSent[i] {
				// A tool call streamed without input: its raw input
				// goes in one delta before its end.
				rawSent[i] = true
				out = append(out, &sseEvent{name: "content_block_delta", changed: true, obj: map[string]any{
					"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": rw.f.RawInput},
				}})
			}
		}
		out = append(out, e)
	}
	return out, changed
}

// openaiChoice is what a stream says of one choice: its text's length
// and its tool calls' arguments' lengths, by tool index.
type openaiChoice struct {
	text  int
	calls []int
}

func number(v any) int {
	n, ok := v.(json.Number)
	if !ok {
		return -1
	}
	i, err := n.Int64()
	if err != nil {
		return -1
	}
	return int(i)
}

func chunkChoices(e *sseEvent) []map[string]any {
	var out []map[string]any
	if e.obj == nil {
		return nil
	}
	list, _ := e.obj["choices"].([]any)
	for _, c := range list {
		if cm, ok := c.(map[string]any); ok {
			out = append(out, cm)
		}
	}
	return out
}

func deltaCalls(delta map[string]any) []map[string]any {
	var out []map[string]any
	list, _ := delta["tool_calls"].([]any)
	for _, c := range list {
		if cm, ok := c.(map[string]any); ok {
			out = append(out, cm)
		}
	}
	return out
}

// openaiStream rewrites a Chat Completions stream.
func (rw *rewriter) openaiStream(events []*sseEvent) ([]*sseEvent, bool) {
	choices := map[int]*openaiChoice{}
	for _, e := range events {
		for _, c := range chunkChoices(e) {
			i := number(c["index"])
			if choices[i] == nil {
				choices[i] = &openaiChoice{}
			}
			ch := choices[i]
			delta, _ := c["delta"].(map[string]any)
			if s, ok := delta["content"].(string); ok {
				ch.text += len(s)
			}
			for _, tc := range deltaCalls(delta) {
				k := number(tc["index"])
				if k < 0 {
					continue
				}
				for len(ch.calls) <= k {
					ch.calls = append(ch.calls, 0)
				}
				fn, _ := tc["function"].(map[string]any)
				args, _ := fn["arguments"].(string)
				ch.calls[k] += len(args)
			}
		}
	}
	plans := map[int]plan{}
	for i, ch := range choices {
		plans[i] = planCut(append([]int{ch.text}, ch.calls...))
	}
	usedText := map[int]int{}
	usedArgs := map[[2]int]int{}
	rawSent := map[[2]int]bool{}
	changed := false
	var out []*sseEvent
	for _, e := range events {
		cs := chunkChoices(e)
		if len(cs) == 0 {
			out = append(out, e)
			continue
		}
		before := encodeJSON(e.obj)
		var keptChoices []any
		for _, c := range cs {
			i := number(c["index"])
			delta, _ := c["delta"].(map[string]any)
			if delta == nil {
				keptChoices = append(keptChoices, c)
				continue
			}
			hadContent := len(delta) > 0 && !onlyRole(delta)
			switch {
			case rw.f.Stop != "":
				p := plans[i]
				if s, ok := delta["content"].(string); ok && s != "" {
					switch {
					case p.block > 0:
					case usedText[i] >= p.at:
						delete(delta, "content")
					case usedText[i]+len(s) > p.at:
						delta["content"] = cutText(s, p.at-usedText[i])
					}
					usedText[i] += len(s)
				}
				if calls := deltaCalls(delta); calls != nil {
					var keep []any
					for _, tc := range calls {
						if number(tc["index"]) < p.block-1 {
							keep = append(keep, tc)
						}
					}
					setDeltaCalls(delta, keep)
				}
				if c["finish_reason"] != nil {
					c["finish_reason"] = "length"
				}
				changed = true
			case rw.f.Empty:
				if s, ok := delta["content"].(string); ok && s != "" {
					delete(delta, "content")
				}
				delete(delta, "tool_calls")
				if c["finish_reason"] != nil {
					c["finish_reason"] = "stop"
				}
				changed = true
			default:
				for _, tc := range deltaCalls(delta) {
					k := [2]int{i, number(tc["index"])}
					fn, _ := tc["function"].(map[string]any)
					if fn == nil {
						continue
					}
					changed = true
					if rw.rename() {
						if name, ok := fn["name"].(string); ok && name != "" {
							fn["name"] = rw.nameFor(name)
						}
						continue
					}
					args, ok := fn["arguments"].(string)
					if !ok {
						continue
					}
					if rw.f.RawInput != "" {
						if rawSent[k] {
							fn["arguments"] = ""
						} else {
							fn["arguments"] = rw.f.RawInput
							rawSent[k] = true
						}
						continue
					}
					keep := choices[i].calls[k[1]] / 2
					switch {
					case usedArgs[k] >= keep:
						fn["arguments"] = ""
					case usedArgs[k]+len(args) > keep:
						fn["arguments"] = cutText(args, keep-usedArgs[k])
					}
					usedArgs[k] += len(args)
				}
			}
			// A chunk left with nothing to say is left out, unless it
			// ends the choice.
			if hadContent && onlyRole(delta) && c["finish_reason"] == nil {
				continue
			}
			keptChoices = append(keptChoices, c)
		}
		if len(keptChoices) == 0 && e.obj["usage"] == nil {
			continue
		}
		e.obj["choices"] = orEmpty(keptChoices)
		// Only a chunk the fault changed is encoded anew.
		e.changed = !bytes.Equal(before, encodeJSON(e.obj))
		out = append(out, e)
	}
	return out, changed
}

func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// onlyRole reports whether a delta says nothing but who speaks.
func onlyRole(delta map[string]any) bool {
	for k, v := range delta {
		if k == "role" || v == nil {
			continue
		}
		if s, ok := v.(string); ok && s == "" {
			continue
		}
		return false
	}
	return true
}

func setDeltaCalls(delta map[string]any, calls []any) {
	if len(calls) == 0 {
		delete(delta, "tool_calls")
		return
	}
	delta["tool_calls"] = calls
}
