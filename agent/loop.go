package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// DefaultLoopLimit is how many identical tool calls in a row, each with
// the same result, make a loop: the model is warned once, and the next
// such call ends the run.
const DefaultLoopLimit = 3

// Loop counts the identical tool calls in a row: the same tool, the same
// input, the same result. A model that asks the same thing and is told
// the same thing three times is not going to learn anything new the
// fourth time (seed 000, section 3.2: step debt). It counts call by call,
// within a reply too: once a streak reaches the limit, the same call is
// not run again, whether it comes in the next reply or later in the same
// one (one reply of 40 identical calls ran all 40 before the detector
// spoke).
type Loop struct {
	// Key identifies the call and its result (a hash); Call the call
	// alone; Tool names it.
	Key  string `json:"key,omitempty"`
	Call string `json:"call,omitempty"`
	Tool string `json:"tool,omitempty"`
	// Count is how many times in a row it came, those not run included.
	Count int `json:"count,omitempty"`
	// Warned is true once the model was warned about this streak.
	Warned bool `json:"warned,omitempty"`

	// What the reply being run has done to the streak: the warning it
	// owes the model (said once the reply's calls are done), whether it
	// was this reply that reached the limit, how many of its calls were
	// not run, and whether the run ends with it.
	warn   string
	fresh  bool
	notRun int
	stop   bool
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
	call := callKey(u)
	k := resultKey(call, res)
	if k != l.Key {
		// A new streak; what the reply owes the model stays owed.
		*l = Loop{Key: k, Call: call, Tool: u.Name, warn: l.warn, stop: l.stop}
	}
	l.Count++
}

// callKey hashes a call's tool and input (compacted, so that spacing does
// not hide a repeat).
func callKey(u llm.Block) string {
	in := []byte(u.Input)
	var v any
	if json.Unmarshal(in, &v) == nil {
		in, _ = json.Marshal(v) // sorted keys, no spacing
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s", u.Name, in)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// resultKey hashes a call's key with its result.
func resultKey(call string, res llm.Block) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%t\x00%s", call, res.IsError, res.Text)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// repeatMsg answers a call the loop detector did not run.
const repeatMsg = "Not run: you called %s with the same input %d times in a row and got the same result each time; this call would get it again. Do something different, or finish the task."

// stoppedMsg answers the calls of a reply after the one that ended the run.
const stoppedMsg = "Not run: the run ends here: %s was called with the same input again after the warning."

// repeated answers, without running it, a call that would go on a streak
// that has reached the limit, and any call of the reply after one that
// ends the run. It counts the call; a repeat after a warning the model
// has read (in an earlier reply) ends the run once the reply's calls are
// done (checkLoop).
func (r *run) repeated(u llm.Block) (llm.Block, bool) {
	l := &r.loop
	if r.cfg.l.loopLimit <= 0 {
		return llm.Block{}, false
	}
	var text string
	switch {
	case l.stop:
		text = fmt.Sprintf(stoppedMsg, l.Tool)
	case l.Count >= r.cfg.l.loopLimit && l.Call == callKey(u):
		l.Count++
		l.notRun++
		if l.Warned && !l.fresh {
			l.stop = true
		}
		text = fmt.Sprintf(repeatMsg, l.Tool, l.Count-1)
	default:
		return llm.Block{}, false
	}
	var class tool.Class
	if t := r.tool(u.Name); t != nil {
		class = t.Class()
	}
	b := llm.ToolResult(u.ID, text, true)
	r.emit(event.NewTool(event.ToolInfo{ID: u.ID, Name: u.Name, Class: string(class), Input: r.shown(u.Input), IsError: true, Result: text}))
	r.afterTool(u, class, &b)
	return b, true
}

// counted counts a call that ran, with its result, and warns (in an
// event now, to the model once the reply's calls are done) when its
// streak reaches the limit.
func (r *run) counted(u llm.Block, res llm.Block) {
	l := &r.loop
	if r.cfg.l.loopLimit <= 0 {
		return
	}
	l.see(u, res)
	if l.Count >= r.cfg.l.loopLimit && !l.Warned {
		l.Warned, l.fresh = true, true
		l.warn = l.Tool
		r.emit(event.NewLoop(l.Tool, l.Count, false))
	}
}

// checkLoop ends the counting of one reply's tool calls (counted and
// repeated count them one by one as they run). It returns the warning
// to feed back when a streak reached the limit in this reply, or a
// reason to end the run when a call went on a streak after its warning.
func (r *run) checkLoop(_, _ []llm.Block) (warn, stop string) {
	l := &r.loop
	if r.cfg.l.loopLimit <= 0 {
		return "", ""
	}
	if l.stop {
		return "", fmt.Sprintf("loop: %s repeated %d times", l.Tool, l.Count)
	}
	if l.warn != "" {
		count := r.cfg.l.loopLimit
		if l.fresh {
			count = l.Count
		}
		warn = fmt.Sprintf(loopMsg, l.warn, count)
		if l.fresh && l.notRun > 0 {
			warn += fmt.Sprintf(" The last %d of those calls were not run.", l.notRun)
		}
	}
	l.warn, l.fresh, l.notRun = "", false, 0
	return warn, ""
}
