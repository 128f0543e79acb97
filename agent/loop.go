package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// DefaultLoopLimit is how many identical tool calls in a row, each with
// the same result, make a loop: the model is warned once, and the next
// such call ends the run.
const DefaultLoopLimit = 3

// Loop counts the identical tool calls in a row: the same tool, the same
// input, the same result. A model that asks the same thing and is told
// the same thing three times is not going to learn anything new the
// fourth time (seed 000, section 3.2: step debt).
type Loop struct {
	// Key identifies the call and its result (a hash); Tool names it.
	Key  string `json:"key,omitempty"`
	Tool string `json:"tool,omitempty"`
	// Count is how many times in a row it came.
	Count int `json:"count,omitempty"`
	// Warned is true once the model was warned about this streak.
	Warned bool `json:"warned,omitempty"`
}

// ErrLoop matches the Err of a run that the loop detector ended (outcome
// step-limit): callers that charge failures (the night) tell a loop from
// a step brake that simply ran out by it, never by the reason's text.
var ErrLoop = errors.New("agent: the same tool call kept getting the same result")

// LoopError is the Err of a run the loop detector ended.
type LoopError struct {
	Tool  string
	Count int
}

func (e *LoopError) Error() string { return fmt.Sprintf("loop: %s repeated %d times", e.Tool, e.Count) }

// Is makes errors.Is(err, ErrLoop) true.
func (e *LoopError) Is(target error) bool { return target == ErrLoop }

// loopMsg is the warning fed back once per streak.
const loopMsg = "[harness] You called %s with the same input %d times in a row and got the same result each time. Calling it again will not change the result: do something different, or finish the task."

// see counts one tool call and its result.
func (l *Loop) see(u llm.Block, res llm.Block) {
	k := callKey(u, res)
	if k != l.Key {
		*l = Loop{Key: k, Tool: u.Name}
	}
	l.Count++
}

// callKey hashes a call's tool and input (compacted, so that spacing does
// not hide a repeat) with its result.
func callKey(u llm.Block, res llm.Block) string {
	in := []byte(u.Input)
	var v any
	if json.Unmarshal(in, &v) == nil {
		in, _ = json.Marshal(v) // sorted keys, no spacing
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%t\x00%s", u.Name, in, res.IsError, res.Text)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// checkLoop counts the results of one reply's tool calls. It returns the
// warning to feed back when a streak first reaches the limit, or a
// reason to end the run when a streak goes on past the warning.
func (r *run) checkLoop(uses []llm.Block, results []llm.Block) (warn, stop string) {
	if r.cfg.LoopLimit <= 0 {
		return "", ""
	}
	for i, u := range uses {
		r.loop.see(u, results[i])
		switch {
		case r.loop.Count > r.cfg.LoopLimit && r.loop.Warned:
			return "", fmt.Sprintf("loop: %s repeated %d times", r.loop.Tool, r.loop.Count)
		case r.loop.Count >= r.cfg.LoopLimit && !r.loop.Warned:
			r.loop.Warned = true
			warn = fmt.Sprintf(loopMsg, r.loop.Tool, r.loop.Count)
			r.emit(event.NewLoop(r.loop.Tool, r.loop.Count, false))
		}
	}
	return warn, ""
}
