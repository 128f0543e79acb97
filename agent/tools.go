package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/tool"
)

// errTransientTool marks a read tool's transient failure for the retry
// layer.
type errTransientTool struct{ msg string }

func (e errTransientTool) Error() string { return e.msg }

// unknownMsg answers, in a resumed run, a call that may have changed the
// workspace but whose result was never recorded: the run stopped (or its
// process died) while it ran. The checkpointer has put the workspace back
// as it was before the call, so that it is never applied twice.
const unknownMsg = "The outcome of this %s call is unknown: the run stopped while it ran, before its result was recorded. The workspace was restored to its state before the call, so nothing it did remains. Call it again if it is still needed."

// toolStop says why a reply's tool calls stopped before the last: a gate
// parked one, or the run's context ended while one ran.
type toolStop struct {
	parked *gate.Action
	err    error
}

// runTools runs every tool call of one reply, in order, and returns one
// result block per call (several calls, one message). A failure of any
// kind is a result the model reads. done, when not nil, holds the results
// a resumed run had recorded: those calls are not run again, and any
// other call that may have changed the workspace is answered as unknown
// (the checkpointer restored what it did); read-class calls simply run
// again. When a gate parks a call, or the run's context ends while a call
// runs, the calls stop there.
func (r *run) runTools(ctx context.Context, uses []llm.Block, done []llm.Block) ([]llm.Block, toolStop) {
	recorded := map[string]llm.Block{}
	for _, b := range done {
		recorded[b.ToolUseID] = b
	}
	out := make([]llm.Block, 0, len(uses))
	// A tool that calls models on the run's behalf (a subagent) finds the
	// run's meter here (MeterOf).
	ctx = context.WithValue(ctx, runKey{}, r)
	for i, u := range uses {
		if b, ok := recorded[u.ID]; ok {
			r.noteRecorded(u, b)
			out = append(out, b)
			continue
		}
		if capped := r.cfg.l.maxCallsPerReply; capped > 0 && i >= capped {
			out = append(out, r.overCap(u, len(uses)))
			continue
		}
		if done != nil {
			if t := r.tool(u.Name); t != nil && t.Class() != tool.Read {
				b := r.unknown(u, t.Class())
				out = append(out, b)
				continue
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, toolStop{err: err}
		}
		res, stop := r.runTool(ctx, u)
		if stop.parked != nil || stop.err != nil {
			return nil, stop
		}
		r.noteRan(u, res)
		out = append(out, res)
	}
	return out, toolStop{}
}

// overCapMsg answers a call past the per-reply cap: %[1]d calls in the
// reply, %[2]d run.
const overCapMsg = "Not run: your reply made %[1]d tool calls, and at most %[2]d of one reply run (--max-calls-per-reply). Make the calls you still need in your next reply, a few at a time."

// overCap answers a call past Config.MaxCallsPerReply without running it
// or asking the gate, and records that answer.
func (r *run) overCap(u llm.Block, calls int) llm.Block {
	var class tool.Class
	if t := r.tool(u.Name); t != nil {
		class = t.Class()
	}
	b := llm.ToolResult(u.ID, fmt.Sprintf(overCapMsg, calls, r.cfg.l.maxCallsPerReply), true)
	r.emit(event.NewTool(event.ToolInfo{ID: u.ID, Name: u.Name, Class: string(class), Input: u.Input, IsError: true, Result: b.Text}))
	r.afterTool(u, class, &b)
	return b
}

// unknown answers a resumed run's unrecorded call of class as unknown,
// and records that answer.
func (r *run) unknown(u llm.Block, class tool.Class) llm.Block {
	b := llm.ToolResult(u.ID, fmt.Sprintf(unknownMsg, u.Name), true)
	r.emit(event.NewTool(event.ToolInfo{ID: u.ID, Name: u.Name, Class: string(class), Input: r.shown(u.Input),
		IsError: true, Result: b.Text, Unknown: true}))
	r.afterTool(u, class, &b)
	return b
}

// tool returns the run's tool called name, or nil.
func (r *run) tool(name string) tool.Tool {
	if r.cfg.Tools == nil {
		return nil
	}
	t, _ := r.cfg.Tools.Get(name)
	return t
}

// afterTool records a call's result with the checkpointer (nil: the call
// was cut short and its result is not kept).
func (r *run) afterTool(u llm.Block, class tool.Class, b *llm.Block) {
	if r.cfg.Checkpoint == nil {
		return
	}
	if err := r.cfg.Checkpoint.AfterTool(u, class, b); err != nil {
		r.emit(event.NewCheckpoint(event.CheckpointInfo{Err: err, Tool: u.Name}))
	}
}

// runTool runs one call and returns its result, recorded with the
// checkpointer; a stop when a gate parked it or the run's context ended
// while it ran.
func (r *run) runTool(ctx context.Context, u llm.Block) (llm.Block, toolStop) {
	if b, ok := r.repeated(u); ok {
		return b, toolStop{}
	}
	var class tool.Class
	if t := r.tool(u.Name); t != nil {
		class = t.Class()
	}
	// The call's span holds the gate's decision as well as the call.
	ctx, end := r.observeTool(ctx, u, class)
	res, class, parked := r.decideAndRun(ctx, u)
	end(res)
	if parked != nil {
		return llm.Block{}, toolStop{parked: parked}
	}
	if err := ctx.Err(); err != nil {
		// The run is stopping (its time ran out, or a person stopped
		// it) and the call may have been cut short: its result is not
		// kept, and what it did is undone, so that a resumed run
		// treats it as a call whose outcome is unknown.
		r.afterTool(u, class, nil)
		return llm.Block{}, toolStop{err: err}
	}
	b := llm.ToolResult(u.ID, res.Content, res.IsError)
	r.afterTool(u, class, &b)
	r.counted(u, b)
	return b, toolStop{}
}

func (r *run) decideAndRun(ctx context.Context, u llm.Block) (tool.Result, tool.Class, *gate.Action) {
	info := event.ToolInfo{ID: u.ID, Name: u.Name, Input: r.shown(u.Input)}
	t := r.tool(u.Name)
	// A call that cannot run (an invented tool, input its schema
	// rejects) is answered before the gate: nobody is asked to approve
	// it, and the audit log says it was rejected, not allowed.
	var invalid error
	if r.cfg.Tools != nil {
		invalid = r.cfg.Tools.Validate(u.Name, u.Input)
	}
	if t == nil || invalid != nil {
		res := r.callSet(ctx, u) // the set's answer: the tools that exist, or the schema's complaint
		class := tool.Read       // nothing ran: as harmless as a read
		if t != nil {
			class = t.Class()
			info.Class = string(class)
		}
		if r.cfg.Gate != nil {
			a := gate.Action{Run: r.cfg.RunID, Tool: u.Name, Input: u.Input}
			if t != nil {
				a.Class = class
			}
			info.Decision, info.DecidedBy = string(gate.Reject), string(gate.BySchema)
			if err := r.cfg.Gate.Reject(a, firstLine(res.Content)); err != nil {
				res = tool.Error(fmt.Sprintf("refused: %s was not run; the audit log could not be written: %v", u.Name, err))
			}
		}
		info.IsError, info.Result = res.IsError, res.Content
		r.emit(event.NewTool(info))
		return res, class, nil
	}
	class := t.Class()
	info.Class = string(class)
	// What must happen before the call runs: the capture of the workspace
	// before a danger-class tool, so that what a command changes is rolled
	// back too (seed 000, section 4.4), and the checkpoint. With a gate it
	// runs inside the gate's decision, once the call is allowed and before
	// the decision is audited: a call it could not prepare for is audited
	// as refused, with the reason, not as allowed.
	captured := false
	prepare := func(ctx context.Context) error {
		// A command, or a tool nightshift cannot see into (an MCP
		// server's that is not read-class), may change any file: the
		// workspace is captured before it, so a rollback undoes it too.
		if tool.Captured(t) && r.cfg.Snapshots != nil {
			if err := r.cfg.Snapshots.Snapshot(ctx); err != nil {
				return fmt.Errorf("the workspace could not be captured for rollback: %w", err)
			}
			captured = true
		}
		if r.cfg.Checkpoint != nil {
			if err := r.cfg.Checkpoint.BeforeTool(ctx, u, class); err != nil {
				return fmt.Errorf("the run's checkpoint could not be written: %w", err)
			}
		}
		return nil
	}
	defer func() {
		if !captured {
			return
		}
		if err := r.cfg.Snapshots.AfterSnapshot(); err != nil {
			r.emit(event.NewJournal(u.Name, err))
		}
	}()
	if r.cfg.Gate != nil {
		a := gate.Action{Run: r.cfg.RunID, Tool: u.Name, Class: class, Input: u.Input}
		v, err := r.cfg.Gate.CheckThen(ctx, a, prepare)
		info.Decision, info.DecidedBy = string(v.Decision), string(v.By)
		var parked *gate.ParkedError
		if errors.As(err, &parked) {
			info.Decision = "park"
			r.emit(event.NewTool(info))
			return tool.Result{}, class, &parked.Action
		}
		if err != nil || !v.Allowed() {
			res := v.Result(u.Name)
			info.IsError = true
			switch {
			case v.Decision == gate.Refuse:
				info.NotRun = v.Reason
			case err != nil && v.Reason == "":
				res = tool.Error(fmt.Sprintf("refused: %s was not run; the gate could not decide: %v", u.Name, err))
				info.NotRun = fmt.Sprintf("the gate could not decide: %v", err)
			}
			r.emit(event.NewTool(info))
			return res, class, nil
		}
	} else if err := prepare(ctx); err != nil {
		info.IsError, info.NotRun = true, err.Error()
		r.emit(event.NewTool(info))
		return tool.Error(fmt.Sprintf("%s was not run: %v", u.Name, err)), class, nil
	}
	var res tool.Result
	if class == tool.Read {
		res = r.retryRead(ctx, u)
	} else {
		// A write is never repeated blindly: it runs once, and a
		// transient failure goes back to the model (seed 000, section 5).
		res = r.callValid(ctx, u)
	}
	info.IsError, info.Result = res.IsError, res.Content
	r.emit(event.NewTool(info))
	return res, class, nil
}

func (r *run) callSet(ctx context.Context, u llm.Block) tool.Result {
	if r.cfg.Tools == nil {
		return tool.Error(fmt.Sprintf("unknown tool %q: this run has no tools", u.Name))
	}
	return r.cfg.Tools.Call(ctx, u.Name, u.Input)
}

// callValid runs a call decideAndRun has validated (tool.Set.CallValidated):
// its input is not checked against the schema a second time.
func (r *run) callValid(ctx context.Context, u llm.Block) tool.Result {
	if r.cfg.Tools == nil {
		return r.callSet(ctx, u)
	}
	return r.cfg.Tools.CallValidated(ctx, u.Name, u.Input)
}

// retryRead runs a read-class tool, retrying a transient failure through
// the same retry layer as model calls.
func (r *run) retryRead(ctx context.Context, u llm.Block) tool.Result {
	p := r.cfg.Retry
	p.Retryable = func(err error) bool { _, ok := err.(errTransientTool); return ok }
	p.OnRetry = func(a retry.Attempt) {
		r.emit(event.NewRetry(event.RetryInfo{Tool: u.Name, Attempt: a.Attempt, Wait: a.Wait, Err: a.Err}))
	}
	var last tool.Result
	_, err := retry.Do(ctx, p, func(ctx context.Context) (struct{}, error) {
		last = r.callValid(ctx, u)
		if last.IsError && last.Transient {
			return struct{}{}, errTransientTool{last.Content}
		}
		return struct{}{}, nil
	})
	if err != nil && !last.IsError {
		return tool.Error(err.Error())
	}
	return last
}

// shown is a call's input as its event shows it: redacted before the
// event cuts it, so that the cut never splits a key.
func (r *run) shown(input json.RawMessage) json.RawMessage {
	return json.RawMessage(r.cfg.Tools.Redact(string(input)))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return truncate(s, 160)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
