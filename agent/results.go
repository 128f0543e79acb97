package agent

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// DefaultResultCap is the size in bytes above which a tool result is cut
// in the history (Config.ResultCap): 32 KiB, about 8,000 tokens, is more
// than any one step needs to read at once, and a run of such steps fills
// even a large window quickly.
const DefaultResultCap = 32 << 10

// ReadResultName is the name of the tool that reads a cut result back.
const ReadResultName = "read_result"

// ResultStore keeps the whole of the tool results that were cut in the
// history, by the ID of the tool call they answer, for read_result. The
// lifecycle keeps them in the run's state folder, out of the workspace.
type ResultStore interface {
	Put(id, content string) error
	Get(id string) (string, error)
}

// ErrNoResult is returned by a ResultStore's Get for an ID it does not
// hold.
var ErrNoResult = errors.New("no such result")

// resultCap is the cap in force: Config.ResultCap, else the default, or a
// tenth of a small context window (at four characters a token: the
// window given, or the smaller one the server showed); zero when results
// are never cut.
func (r *run) resultCap() int {
	c := r.cfg
	switch {
	case c.Results == nil || c.ResultCap < 0:
		return 0
	case c.ResultCap > 0:
		return c.ResultCap
	case r.window > 0:
		return min(DefaultResultCap, r.window*4/10)
	}
	return DefaultResultCap
}

// cutNote stands between a cut result's head and tail.
const cutNote = "\n\n[harness] This result is %d bytes, too long for the conversation: bytes %d to %d are not shown. The whole result is kept; read_result {\"id\": %q, \"offset\": %d} returns it from there.\n\n"

// cutResults keeps each tool result bigger than the cap whole in the
// store and returns the results with those cut to their head and tail
// and a note naming read_result, which the run's tools get from the first
// cut on. A result that cannot be stored stays whole.
func (r *run) cutResults(results []llm.Block) []llm.Block {
	limit := r.resultCap()
	if limit == 0 {
		return results
	}
	var out []llm.Block
	for i, b := range results {
		if len(b.Text) <= limit {
			continue
		}
		id := r.freeResultID(b.ToolUseID)
		if err := r.cfg.Results.Put(id, b.Text); err != nil {
			r.emit(event.NewCut(event.CutInfo{ID: id, Err: err}))
			continue
		}
		if err := r.addReadResult(); err != nil {
			r.emit(event.NewCut(event.CutInfo{ID: id, Err: err}))
			continue
		}
		if out == nil {
			out = append([]llm.Block(nil), results...)
		}
		head := runeStart(b.Text, limit*3/8)
		tail := runeStart(b.Text, len(b.Text)-limit/8)
		cut := b
		cut.Text = b.Text[:head] + fmt.Sprintf(cutNote, len(b.Text), head, tail, id, head) + b.Text[tail:]
		out[i] = cut
		r.resultsCut++
		r.emit(event.NewCut(event.CutInfo{ID: id, Bytes: len(b.Text), KeptBytes: len(cut.Text), Head: head, TailFrom: tail}))
	}
	if out == nil {
		return results
	}
	return out
}

// freeResultID is the ID a cut result is kept under: its tool call's
// ID, or that ID with -2, -3, ... when the store holds an earlier result
// under it. Tool-use IDs are unique on the providers' APIs, but not on
// every server (the in-process scripted model and some OpenAI-compatible
// servers number a reply's calls from 1), and a result kept under a
// taken ID would replace one an earlier note still names. The store is
// asked (a resumed run's earlier parts kept results too), from the
// suffix this run last gave the ID on, so that a long run does not read
// every earlier result back each time; ErrNoResult, or any failure to
// read, ends the search (Put reports a store that fails).
func (r *run) freeResultID(toolUseID string) string {
	if r.cutIDs == nil {
		r.cutIDs = map[string]int{}
	}
	for n := max(r.cutIDs[toolUseID], 1); ; n++ {
		id := toolUseID
		if n > 1 {
			id = fmt.Sprintf("%s-%d", toolUseID, n)
		}
		if _, err := r.cfg.Results.Get(id); err != nil {
			r.cutIDs[toolUseID] = n + 1
			return id
		}
	}
}

// runeStart moves i back to the start of the character it falls in, so
// that a cut never splits one.
func runeStart(s string, i int) int {
	i = max(0, min(i, len(s)))
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// addReadResult gives the run's tools read_result, once.
func (r *run) addReadResult() error {
	if r.cfg.Tools == nil {
		set, err := tool.NewSet()
		if err != nil {
			return err
		}
		r.cfg.Tools = set
	}
	if _, ok := r.cfg.Tools.Get(ReadResultName); ok {
		return nil
	}
	set, err := r.cfg.Tools.With(readResult(r.cfg.Results, r.resultCap()))
	if err != nil {
		return err
	}
	r.cfg.Tools = set
	return nil
}

type readResultIn struct {
	ID     string `json:"id" jsonschema:"the ID named in the cut result's note (the tool call's ID)"`
	Offset int    `json:"offset,omitempty" jsonschema:"the byte offset to read from; default 0"`
}

// readResult is the read_result tool: it reads a cut result back, half a
// cap at a time, so that what it returns is never cut itself.
func readResult(store ResultStore, limit int) tool.Tool {
	chunk := max(limit/2, 1)
	return tool.Func(ReadResultName,
		"Read a tool result that was too long for the conversation and was cut. Give the id and offset its note names; returns the result from that byte offset, a part at a time.",
		tool.Read,
		func(_ context.Context, in readResultIn) (string, error) {
			text, err := store.Get(in.ID)
			if err != nil {
				return "", fmt.Errorf("read_result: %s: %w", in.ID, err)
			}
			if in.Offset < 0 || in.Offset > len(text) {
				return "", fmt.Errorf("read_result: offset %d is outside the result's %d bytes", in.Offset, len(text))
			}
			from := runeStart(text, in.Offset)
			to := runeStart(text, from+chunk)
			if to <= from {
				to = len(text)
			}
			out := text[from:to]
			if to < len(text) {
				out += fmt.Sprintf("\n\n[harness] bytes %d to %d of %d; read_result {\"id\": %q, \"offset\": %d} returns the next part.", from, to, len(text), in.ID, to)
			}
			return out, nil
		})
}
