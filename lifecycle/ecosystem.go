package lifecycle

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/memory"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/mcp"
	"github.com/nightshift-dev/nightshift/tracing"
	"github.com/nightshift-dev/nightshift/workspace"
)

// extras are what a run has beside its own tools (Config.Tools): the MCP
// servers' tools, memory's remember and recall, and delegate_task, made
// before the tool set so that every rule and name check sees them.
type extras struct {
	tools    []tool.Tool
	mcp      *mcp.Toolbox
	memory   memory.Store
	brief    string
	delegate *delegator
}

// openExtras starts the MCP servers and opens the memory. own are the
// run's own tools, whose names the others must not take. A stdio MCP
// server gets the environment of the run's commands (sb's, outside the
// sandbox: --env's variables and the journal's mark, never a
// credential) plus what its own env names, and runs in sb when that is
// bwrap. An MCP server that does not
// start is an error matching mcp.ErrConfig; nothing has been sent to a
// model.
func openExtras(ctx context.Context, cfg Config, root *workspace.Root, state string, sb *sandbox.Sandbox, own []tool.Tool) (*extras, error) {
	x := &extras{}
	if cfg.memoryOn() {
		if cfg.Memory != nil {
			x.memory = cfg.Memory.Store
		}
		if x.memory == nil {
			x.memory = memory.Dir(filepath.Join(state, statedir.MemoryName))
		}
		if cfg.Redact != nil {
			x.memory = redactedMemory{x.memory, cfg.Redact.String}
		}
		notes, err := x.memory.Notes(ctx)
		if err != nil {
			return nil, fmt.Errorf("lifecycle: memory: %w", err)
		}
		x.brief = memory.Brief(notes, memory.BriefLimit)
		x.tools = append(x.tools, memory.Tools(x.memory, memory.Who{Run: cfg.RunID, Model: cfg.spec.ModelName, Clock: cfg.Clock})...)
	}
	if len(cfg.MCP) > 0 {
		var taken []string
		for _, t := range append(append([]tool.Tool(nil), own...), x.tools...) {
			taken = append(taken, t.Spec().Name)
		}
		// Stdio servers start in a folder of the run's state, outside
		// the workspace, and run in the commands' sandbox where that is
		// bwrap, with a cache of their own beside it (npx's, uvx's).
		tb, err := mcp.Open(ctx, mcp.Config{Servers: cfg.MCP, Dir: root.Dir(), Taken: taken,
			Env: sb.OutsideEnv(), Environ: cfg.Environ, Warn: cfg.Warn,
			Sandbox: sb, StartDir: filepath.Join(state, "mcp"), CacheDir: filepath.Join(state, "mcp-cache")})
		if err != nil {
			return nil, err
		}
		x.mcp = tb
		x.tools = append(x.tools, tb.Tools()...)
	}
	if cfg.spec.Subagents {
		// The child gets the read-class tools of every source, and never
		// delegate_task itself: no grandchildren.
		var read []tool.Tool
		for _, t := range append(append([]tool.Tool(nil), own...), x.tools...) {
			if t.Class() == tool.Read {
				read = append(read, t)
			}
		}
		x.delegate = &delegator{cfg: cfg, read: read}
		x.tools = append(x.tools, x.delegate)
	}
	return x, nil
}

// system is the worker's system prompt with the memory's brief.
func (x *extras) system(s string) string {
	if x.brief == "" {
		return s
	}
	return cmp.Or(s, agent.DefaultSystem) + x.brief
}

// remember keeps why a run that did not end done failed, for the next
// attempt (seed 003: the escalated model should not start blind). An
// interrupted run failed at nothing.
func (x *extras) remember(ctx context.Context, cfg Config, res *agent.Result) error {
	if x.memory == nil || res.Outcome == agent.Done || res.Outcome == agent.Interrupted {
		return nil
	}
	text := string(res.Outcome) + ": " + res.Reason
	if len(res.FailedChecks) > 0 && !strings.Contains(res.Reason, strings.Join(res.FailedChecks, ", ")) {
		text += " (failed checks: " + strings.Join(res.FailedChecks, ", ") + ")"
	}
	return x.memory.Add(context.WithoutCancel(ctx), memory.Note{
		At: cfg.Clock.Now().UTC(), Kind: memory.Failure, Text: text, Run: cfg.RunID, Model: cfg.spec.ModelName,
	})
}

// close stops the MCP servers.
func (x *extras) close() error { return x.mcp.Close() }

// traceInfo describes the run for its span.
func traceInfo(cfg Config, task string) tracing.RunInfo {
	info := tracing.RunInfo{ID: cfg.RunID, Task: task, Model: cfg.spec.ModelName, Provider: tracing.ProviderOf(cfg.Model),
		MaxSteps: cfg.spec.MaxSteps, Redact: redactFunc(cfg.Redact)}
	info.JudgeProvider = info.Provider
	if cfg.Verifier != nil && cfg.Verifier.Judge != nil && cfg.Verifier.Judge.Model != nil {
		info.JudgeProvider = tracing.ProviderOf(cfg.Verifier.Judge.Model)
	}
	return info
}

// traced sends the lifecycle's own events (the rollback) to the run's
// span as well.
func traced(events event.Sink, span *tracing.Run) event.Sink {
	if span == nil {
		return events
	}
	return event.Multi(events, event.SinkFunc(span.RunEvent))
}

// ExtraToolNames are the names of the tools a run with cfg has beside
// its own (Config.Tools), as far as they are known before it starts:
// read_result (any run, once a result is cut), remember and recall (Memory), delegate_task (Subagents); and the
// prefixes, SERVER__, of its MCP servers' tools, whose names are known
// only once the servers list them. A check of gate rules made before the
// run (the night's, at its start) counts a rule naming one of these, or
// starting with one of the prefixes, as naming a tool of the run; the run
// itself checks every rule against its final tool set.
func ExtraToolNames(cfg Config) (names, prefixes []string) {
	// read_result joins any run once a tool result has been cut.
	names = append(names, agent.ReadResultName)
	if cfg.memoryOn() {
		names = append(names, memory.RememberName, memory.RecallName)
	}
	if cfg.Spec != nil && cfg.Spec.Subagents {
		names = append(names, DelegateName)
	}
	for _, s := range cfg.MCP {
		prefixes = append(prefixes, s.Name+mcp.Sep)
	}
	return names, prefixes
}

// redactedMemory keeps notes with the credentials in their text
// replaced: a note (the model's remember, a failure's reason) is read by
// every later attempt and kept on disk.
type redactedMemory struct {
	memory.Store
	redact func(string) string
}

func (m redactedMemory) Add(ctx context.Context, n memory.Note) error {
	n.Text = m.redact(n.Text)
	return m.Store.Add(ctx, n)
}
