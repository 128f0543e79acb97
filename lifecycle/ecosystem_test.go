package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/memory"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/mcp"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

// requests records every request a model is sent.
type requests struct {
	mu   sync.Mutex
	m    llm.Model
	reqs []llm.Request
}

func (r *requests) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, *req)
	r.mu.Unlock()
	return r.m.Generate(ctx, req)
}

func (r *requests) all() []llm.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

// watch records the fixture's model's requests.
func (f *fixture) watch() *requests {
	r := &requests{m: f.cfg.Model}
	f.cfg.Model = r
	return r
}

func toolNames(req llm.Request) []string {
	var out []string
	for _, s := range req.Tools {
		out = append(out, s.Name)
	}
	return out
}

// lastText is the text of a request's last message.
func lastText(req llm.Request) string {
	var b strings.Builder
	for _, blk := range req.Messages[len(req.Messages)-1].Content {
		b.WriteString(blk.Text)
	}
	return b.String()
}

type echoIn struct {
	Text string `json:"text"`
}

// mcpServer is an MCP server over streamable HTTP with one tool, echo.
func mcpServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

const callEcho = `
turns:
  - tool_calls: [{name: srv__echo, input: {text: hi}}]
  - text: Echoed.
`

func TestAnMCPServersToolsReachTheRunThroughTheGate(t *testing.T) {
	t.Run("a tool of the class a person gave runs and is audited", func(t *testing.T) {
		f := setup(t, callEcho)
		reqs := f.watch()
		f.cfg.MCP = []mcp.Server{{Name: "srv", URL: mcpServer(t), Class: tool.Read}}
		res := f.run(t)
		if res.Outcome != agent.Done {
			t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
		}
		all := reqs.all()
		if !slices.Contains(toolNames(all[0]), "srv__echo") {
			t.Fatalf("tools offered %v, want srv__echo", toolNames(all[0]))
		}
		if got := lastText(all[1]); got != "echo: hi" {
			t.Errorf("the tool result the model read = %q", got)
		}
		log, _ := os.ReadFile(filepath.Join(res.StateDir, "audit.jsonl"))
		if !strings.Contains(string(log), `"tool":"srv__echo"`) || !strings.Contains(string(log), `"class":"read"`) {
			t.Errorf("audit log %s, want the call with its class", log)
		}
	})
	t.Run("by default an MCP tool is danger-class: with nobody to ask it is refused", func(t *testing.T) {
		f := setup(t, callEcho)
		reqs := f.watch()
		f.cfg.MCP = []mcp.Server{{Name: "srv", URL: mcpServer(t)}}
		f.run(t)
		if got := lastText(reqs.all()[1]); !strings.Contains(got, "refused") {
			t.Errorf("the tool result the model read = %q, want a refusal", got)
		}
	})
	t.Run("a server that never starts stops the run before any model call", func(t *testing.T) {
		f := setup(t, callEcho)
		called := false
		f.cfg.Model = llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			called = true
			return nil, errors.New("unreachable")
		})
		f.cfg.MCP = []mcp.Server{{Name: "srv", Command: []string{"/nonexistent/mcp-server"}}}
		_, err := lifecycle.Run(context.Background(), f.cfg, "task")
		if !errors.Is(err, mcp.ErrConfig) || called {
			t.Fatalf("err = %v, model called %v; want mcp.ErrConfig before any call", err, called)
		}
	})
	t.Run("a tool named like one of the run's own is refused", func(t *testing.T) {
		f := setup(t, callEcho)
		f.cfg.MCP = []mcp.Server{{Name: "srv", URL: mcpServer(t)}}
		f.cfg.Tools = func(root *workspace.Root) []tool.Tool {
			return []tool.Tool{tool.Func("srv__echo", "mine", tool.Read, func(context.Context, echoIn) (string, error) { return "", nil })}
		}
		if _, err := lifecycle.Run(context.Background(), f.cfg, "task"); !errors.Is(err, mcp.ErrConfig) {
			t.Fatalf("err = %v, want a collision", err)
		}
	})
}

func TestMemoryCarriesNotesAndFailuresToTheNextAttempt(t *testing.T) {
	f := setup(t, `
scripts:
  - name: second
    when: {in: system, contains: "Earlier attempts"}
    turns:
      - text: done, knowing what failed
  - name: first
    turns:
      - tool_calls: [{name: remember, input: {note: "the steps are in docs/setup.md"}}]
      - tool_calls: [{name: read_file, input: {path: notes.md}}]
`)
	reqs := f.watch()
	f.cfg.Memory = &lifecycle.Memory{}
	f.cfg.Spec.MaxSteps = 2
	first := f.run(t)
	if first.Outcome != agent.StepLimit || first.MemoryErr != nil {
		t.Fatalf("first run: %s (%v)", first.Outcome, first.MemoryErr)
	}
	if tools := toolNames(reqs.all()[0]); !slices.Contains(tools, "remember") || !slices.Contains(tools, "recall") {
		t.Fatalf("tools %v, want remember and recall", tools)
	}
	f.cfg.RunID = ""
	second := f.run(t)
	if second.Outcome != agent.Done {
		t.Fatalf("second run: %s (%s)", second.Outcome, second.Reason)
	}
	sys := reqs.all()[2].System
	for _, want := range []string{"the steps are in docs/setup.md", "step-limit: the step brake tripped", agent.DefaultSystem} {
		if !strings.Contains(sys, want) {
			t.Errorf("the second attempt's system prompt lacks %q:\n%s", want, sys)
		}
	}
	notes, err := memory.Dir(filepath.Join(first.StateDir, "memory")).Notes(context.Background())
	if err != nil || len(notes) != 2 || notes[1].Kind != memory.Failure {
		t.Errorf("notes in the state folder = %+v (%v), want the note and the failure", notes, err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "memory")); !errors.Is(err, os.ErrNotExist) {
		t.Error("memory was kept in the workspace")
	}
}

func TestADelegatedTaskRunsAReadOnlyChildAndCountsItsUsage(t *testing.T) {
	f := setup(t, `
scripts:
  - name: child
    when: {in: system, contains: "You are a sub-agent"}
    turns:
      - tool_calls: [{name: read_file, input: {path: notes.md}}]
      - text: "notes.md says: old"
        usage: {input: 1000, output: 100}
  - name: worker
    turns:
      - tool_calls: [{name: delegate_task, input: {brief: "What does notes.md say?"}}]
      - text: The notes say old.
`)
	reqs := f.watch()
	f.cfg.Spec.Subagents = true
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	var worker, child []llm.Request
	for _, r := range reqs.all() {
		if strings.Contains(r.System, "You are a sub-agent") {
			child = append(child, r)
		} else {
			worker = append(worker, r)
		}
	}
	if len(child) != 2 || len(worker) != 2 {
		t.Fatalf("%d child and %d worker requests, want 2 and 2", len(child), len(worker))
	}
	if got := toolNames(child[0]); !slices.Equal(got, []string{"list_dir", "read_file"}) {
		t.Errorf("the child's tools = %v, want the read-class ones only, and no delegate_task", got)
	}
	if !slices.Contains(toolNames(worker[0]), "delegate_task") {
		t.Errorf("the worker's tools %v lack delegate_task", toolNames(worker[0]))
	}
	if got := lastText(worker[1]); got != "notes.md says: old" {
		t.Errorf("the worker read %q, want the child's answer", got)
	}
	if res.Usage.InputTokens < 1000 || res.Record.Usage.InputTokens != res.Usage.InputTokens {
		t.Errorf("usage %+v (record %+v), want the child's 1000 input tokens counted", res.Usage, res.Record.Usage)
	}
	var delegated []string
	for _, e := range f.events.Events() {
		if e.Type == "delegate" {
			delegated = append(delegated, fmt.Sprint(e.Data["event"]))
		}
	}
	if !slices.Equal(delegated, []string{"start", "turn", "tool", "turn", "verify", "outcome"}) {
		t.Errorf("delegate events %v", delegated)
	}
	types := f.events.Types()
	if types[len(types)-1] != "outcome" || types[0] != "start" {
		t.Errorf("events %v: the run's own start and outcome must stay first and last", types)
	}
}

func TestAChildCannotWriteOrDelegate(t *testing.T) {
	f := setup(t, `
scripts:
  - name: child
    when: {in: system, contains: "You are a sub-agent"}
    turns:
      - tool_calls: [{name: write_file, input: {path: notes.md, content: "child\n"}}, {name: delegate_task, input: {brief: again}}]
      - text: could not
  - name: worker
    turns:
      - tool_calls: [{name: delegate_task, input: {brief: "Change notes.md"}}]
      - text: Done.
`)
	f.cfg.Spec.Subagents = true
	f.cfg.Spec.SubagentSteps = 3
	f.cfg.Verifier = &verify.Verifier{}
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	if got := f.read(t, "notes.md"); got != "old\n" {
		t.Errorf("notes.md = %q: the child wrote", got)
	}
	for _, e := range f.events.Events() {
		if e.Type != "delegate" || e.Data["event"] != "tool" {
			continue
		}
		if d := e.Data["data"].(map[string]any); d["is_error"] != true {
			t.Errorf("the child's %v call was not refused: %+v", d["tool"], d)
		}
	}
}

func TestExtraToolNamesAreKnownBeforeTheRun(t *testing.T) {
	names, prefixes := lifecycle.ExtraToolNames(lifecycle.Config{
		Memory: &lifecycle.Memory{}, Spec: &runspec.Spec{Ecosystem: runspec.Ecosystem{Subagents: true}}, MCP: []mcp.Server{{Name: "fs", Command: []string{"x"}}},
	})
	if !slices.Equal(names, []string{"read_result", "remember", "recall", "delegate_task"}) || !slices.Equal(prefixes, []string{"fs__"}) {
		t.Fatalf("names %v, prefixes %v", names, prefixes)
	}
}
