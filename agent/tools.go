package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/tool"
)

// errTransientTool marks a read tool's transient failure for the retry
// layer.
type errTransientTool struct{ msg string }

func (e errTransientTool) Error() string { return e.msg }

// runTools runs every tool call of one reply, in order, and returns one
// result block per call (several calls, one message). A failure of any
// kind is a result the model reads. When a gate parks a call, the run
// stops there and the action is returned.
func (r *run) runTools(ctx context.Context, uses []llm.Block) ([]llm.Block, *gate.Action) {
	out := make([]llm.Block, 0, len(uses))
	// A tool that calls models on the run's behalf counts their usage in
	// the run's (AddUsage).
	ctx = context.WithValue(ctx, usageKey{}, r)
	for _, u := range uses {
		res, parked := r.runTool(ctx, u)
		if parked != nil {
			return nil, parked
		}
		out = append(out, llm.ToolResult(u.ID, res.Content, res.IsError))
	}
	return out, nil
}

func (r *run) runTool(ctx context.Context, u llm.Block) (res tool.Result, parked *gate.Action) {
	data := map[string]any{"id": u.ID, "tool": u.Name, "input": summarize(u.Input, 200)}
	var t tool.Tool
	if r.cfg.Tools != nil {
		t, _ = r.cfg.Tools.Get(u.Name)
	}
	var class tool.Class
	if t != nil {
		class = t.Class()
	}
	ctx, end := r.observeTool(ctx, u, class)
	defer func() { end(res) }()
	if t == nil {
		// An invented tool: the set answers with the tools that exist.
		res := r.callSet(ctx, u)
		data["is_error"] = res.IsError
		data["result"] = firstLine(res.Content)
		r.emit("tool", u.Name+" error: "+firstLine(res.Content), data)
		return res, nil
	}
	data["class"] = string(class)
	if r.cfg.Gate != nil {
		a := gate.Action{Run: r.cfg.RunID, Tool: u.Name, Class: class, Input: u.Input}
		v, err := r.cfg.Gate.Check(ctx, a)
		data["decision"], data["decided_by"] = string(v.Decision), string(v.By)
		var parked *gate.ParkedError
		if errors.As(err, &parked) {
			data["decision"] = "park"
			r.emit("tool", u.Name+" parked: waiting for a person", data)
			return tool.Result{}, &parked.Action
		}
		if err != nil || !v.Allowed() {
			res := v.Result(u.Name)
			if err != nil && v.Reason == "" {
				res = tool.Error(fmt.Sprintf("refused: %s was not run; the gate could not decide: %v", u.Name, err))
			}
			data["is_error"] = true
			r.emit("tool", fmt.Sprintf("%s denied by %s", u.Name, v.By), data)
			return res, nil
		}
	}
	if tool.Captured(t) && r.cfg.Snapshots != nil {
		// Capture the workspace first, so that what a command (or a tool
		// nightshift cannot see into) changes is rolled back too (seed
		// 000, section 4.4).
		if err := r.cfg.Snapshots.Snapshot(ctx); err != nil {
			data["is_error"] = true
			r.emit("tool", u.Name+" not run: the workspace could not be captured", data)
			return tool.Error(fmt.Sprintf("%s was not run: the workspace could not be captured for rollback: %v", u.Name, err)), nil
		}
		defer func() {
			if err := r.cfg.Snapshots.AfterSnapshot(); err != nil {
				r.emit("journal", "after "+u.Name+": "+err.Error(), map[string]any{"error": err.Error()})
			}
		}()
	}
	if class == tool.Read {
		res = r.retryRead(ctx, u)
	} else {
		// A write is never repeated blindly: it runs once, and a
		// transient failure goes back to the model (seed 000, section 5).
		res = r.callSet(ctx, u)
	}
	data["is_error"] = res.IsError
	detail := u.Name + " " + summarize(u.Input, 80)
	if res.IsError {
		detail = u.Name + " error: " + firstLine(res.Content)
		data["result"] = firstLine(res.Content)
	}
	r.emit("tool", detail, data)
	return res, nil
}

func (r *run) callSet(ctx context.Context, u llm.Block) tool.Result {
	if r.cfg.Tools == nil {
		return tool.Error(fmt.Sprintf("unknown tool %q: this run has no tools", u.Name))
	}
	return r.cfg.Tools.Call(ctx, u.Name, u.Input)
}

// retryRead runs a read-class tool, retrying a transient failure through
// the same retry layer as model calls.
func (r *run) retryRead(ctx context.Context, u llm.Block) tool.Result {
	p := r.cfg.Retry
	p.Retryable = func(err error) bool { _, ok := err.(errTransientTool); return ok }
	p.OnRetry = func(a retry.Attempt) {
		r.emit("retry", fmt.Sprintf("tool=%s attempt=%d wait=%dms", u.Name, a.Attempt, a.Wait.Milliseconds()), map[string]any{
			"tool": u.Name, "attempt": a.Attempt, "wait_ms": a.Wait.Milliseconds(), "error": errString(a.Err),
		})
	}
	var last tool.Result
	_, err := retry.Do(ctx, p, func(ctx context.Context) (struct{}, error) {
		last = r.callSet(ctx, u)
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

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return truncate(s, 160)
}

// summarize renders a tool input compactly for events and audit lines.
func summarize(in json.RawMessage, n int) string {
	return truncate(strings.Join(strings.Fields(string(in)), " "), n)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
