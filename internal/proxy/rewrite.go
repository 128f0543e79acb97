package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"
)

// rewriter applies a content fault (truncate, empty, broken tool input, a
// renamed tool) to a real answer, on either wire, streamed or not. What it
// does not change is sent as it came.
type rewriter struct {
	f *Fault
	// offered are the tools the request offered, so that an invented
	// name is none of them.
	offered []string
}

// errNotApplied says the answer has nothing the fault could change (no
// tool call to break or rename).
var errNotApplied = errors.New("nothing to change")

// inputFor is a tool call's new input text.
func (rw *rewriter) inputFor(orig string) string {
	if rw.f.RawInput != "" {
		return rw.f.RawInput
	}
	return cutText(orig, len(orig)/2)
}

// nameFor is a tool call's new name: the fault's, or one the request does
// not offer, made from the real one as a model's invention is.
func (rw *rewriter) nameFor(orig string) string {
	if rw.f.ToolName != "" {
		return rw.f.ToolName
	}
	name := orig + "_v2"
	for slices.Contains(rw.offered, name) {
		name += "_v2"
	}
	return name
}

func (rw *rewriter) input() bool  { return rw.f.RawInput != "" || rw.f.BrokenJSON }
func (rw *rewriter) rename() bool { return rw.f.ToolName != "" || rw.f.UnknownTool }

// cutText cuts s to at most n bytes, never inside a UTF-8 sequence.
func cutText(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// plan is where a truncation falls in content of the given lengths: the
// blocks before block stay whole; block itself keeps its first at bytes
// when it is text (a tool call cut short is dropped: a truncation is
// not a broken tool input); the blocks after it go.
type plan struct{ block, at int }

func planCut(lengths []int) plan {
	total := 0
	for _, l := range lengths {
		total += l
	}
	half := total / 2
	for i, l := range lengths {
		if half < l {
			return plan{i, half}
		}
		half -= l
	}
	return plan{len(lengths), 0}
}

// json rewrites a JSON answer.
func (rw *rewriter) json(wire string, body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	var ok bool
	if wire == "openai" {
		ok = rw.openaiJSON(obj)
	} else {
		ok = rw.anthropicJSON(obj)
	}
	if !ok {
		return nil, errNotApplied
	}
	return append(encodeJSON(obj), '\n'), nil
}

// anthropicJSON rewrites a Messages API answer in place.
func (rw *rewriter) anthropicJSON(obj map[string]any) bool {
	blocks, _ := obj["content"].([]any)
	switch {
	case rw.f.Stop != "":
		lengths := make([]int, len(blocks))
		for i, b := range blocks {
			lengths[i] = anthropicLen(b)
		}
		p := planCut(lengths)
		kept := slices.Clone(blocks[:p.block])
		if p.block < len(blocks) {
			if bm, _ := blocks[p.block].(map[string]any); bm["type"] == "text" && p.at > 0 {
				bm["text"] = cutText(bm["text"].(string), p.at)
				kept = append(kept, bm)
			}
		}
		obj["content"], obj["stop_reason"], obj["stop_sequence"] = kept, "max_tokens", nil
		return true
	case rw.f.Empty:
		obj["content"], obj["stop_reason"], obj["stop_sequence"] = []any{}, "end_turn", nil
		return true
	}
	changed := false
	for _, b := range blocks {
		bm, _ := b.(map[string]any)
		if bm["type"] != "tool_use" {
			continue
		}
		changed = true
		if rw.input() {
			// A body cannot hold a broken object: the input goes as a
			// string holding the text, as the simulator sends one.
			bm["input"] = rw.inputFor(string(encodeJSON(bm["input"])))
		} else {
			name, _ := bm["name"].(string)
			bm["name"] = rw.nameFor(name)
		}
	}
	return changed
}

// anthropicLen is a content block's length: its text, or its input's JSON.
func anthropicLen(b any) int {
	bm, _ := b.(map[string]any)
	switch bm["type"] {
	case "text":
		s, _ := bm["text"].(string)
		return len(s)
	case "tool_use":
		return len(encodeJSON(bm["input"]))
	}
	return 0
}

// openaiJSON rewrites a Chat Completions answer in place, every choice.
func (rw *rewriter) openaiJSON(obj map[string]any) bool {
	choices, _ := obj["choices"].([]any)
	changed := false
	for _, c := range choices {
		cm, _ := c.(map[string]any)
		msg, _ := cm["message"].(map[string]any)
		if msg == nil {
			continue
		}
		calls, _ := msg["tool_calls"].([]any)
		switch {
		case rw.f.Stop != "":
			text, _ := msg["content"].(string)
			lengths := []int{len(text)}
			for _, tc := range calls {
				lengths = append(lengths, len(openaiArgs(tc)))
			}
			p := planCut(lengths)
			if p.block == 0 {
				msg["content"] = cutText(text, p.at)
			}
			keep := max(p.block-1, 0)
			if keep < len(calls) {
				calls = calls[:keep]
			}
			setCalls(msg, calls)
			cm["finish_reason"] = "length"
			changed = true
		case rw.f.Empty:
			msg["content"] = ""
			setCalls(msg, nil)
			cm["finish_reason"] = "stop"
			changed = true
		default:
			for _, tc := range calls {
				fn := openaiFunction(tc)
				if fn == nil {
					continue
				}
				changed = true
				if rw.input() {
					args, _ := fn["arguments"].(string)
					fn["arguments"] = rw.inputFor(args)
				} else {
					name, _ := fn["name"].(string)
					fn["name"] = rw.nameFor(name)
				}
			}
		}
	}
	return changed
}

func setCalls(msg map[string]any, calls []any) {
	if len(calls) == 0 {
		delete(msg, "tool_calls")
		return
	}
	msg["tool_calls"] = calls
}

func openaiFunction(tc any) map[string]any {
	tm, _ := tc.(map[string]any)
	fn, _ := tm["function"].(map[string]any)
	return fn
}

func openaiArgs(tc any) string {
	s, _ := openaiFunction(tc)["arguments"].(string)
	return s
}
