package night_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/tracing"
)

// seen is a model that keeps the requests it is sent.
type seen struct {
	mu   sync.Mutex
	m    llm.Model
	reqs []llm.Request
}

func (s *seen) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, *req)
	s.mu.Unlock()
	return s.m.Generate(ctx, req)
}

func scriptedModel(t *testing.T, f *fixture, yaml, session string) *seen {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return &seen{m: scripted.New(sc, scripted.Config{Clock: f.clk, Session: session})}
}

// TestTheEscalatedModelDoesNotStartBlind is seed 003's escalation with
// memory: a task failed on b1 (once by hand, once at night, where b1
// kept a note and hit its step brake) goes to b2, whose first request
// holds b1's failure reasons and its note.
func TestTheEscalatedModelDoesNotStartBlind(t *testing.T) {
	ctx := context.Background()
	f := setup(t, twoBuilders)
	f.p.Roles[ledger.Builder].MaxSteps = 2
	b1 := scriptedModel(t, f, `
turns:
  - tool_calls: [{name: remember, input: {note: "the text is on the mirror, not the main site"}}]
  - tool_calls: [{name: list_dir, input: {path: .}}]
`, "b1")
	b2 := scriptedModel(t, f, `
turns:
  - text: Built the booklet from the mirror.
`, "b2")
	models := map[string]llm.Model{"b1": b1, "b2": b2}
	book := f.add("booklet", 9)
	if _, err := f.l.FailTask(ctx, book.ID, 0, "returned nothing on the 17th", f.clk.Now()); err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	tr := tracing.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), tracing.Options{})
	run := func() {
		t.Helper()
		if _, err := night.Run(ctx, night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk, Trace: tr}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if len(b1.reqs) == 0 || len(b2.reqs) != 0 {
		t.Fatalf("night 1: b1 got %d requests, b2 %d; want b1 to try", len(b1.reqs), len(b2.reqs))
	}
	if got, _ := f.l.Task(ctx, book.ID); got.Level != 1 {
		t.Fatalf("after night 1 the booklet is at level %d, want 1 (escalated to b2)", got.Level)
	}
	notes, err := f.l.TaskNotes(ctx, book.ID)
	if err != nil || len(notes) != 1 || notes[0].Worker != "b1" {
		t.Fatalf("task notes %+v (%v), want b1's note in the ledger", notes, err)
	}

	f.clk.Advance(24 * time.Hour)
	run()
	if len(b2.reqs) == 0 {
		t.Fatal("night 2: b2 was never asked")
	}
	first := b2.reqs[0].System
	for _, want := range []string{
		"the text is on the mirror, not the main site", // b1's note
		"step-limit: the step brake tripped",           // b1's failure reason, as the night charged it
		"returned nothing on the 17th",                 // the failure recorded by hand
	} {
		if !strings.Contains(first, want) {
			t.Errorf("b2's first request does not hold %q; its system prompt:\n%s", want, first)
		}
	}
	if got, _ := f.l.Task(ctx, book.ID); got.State != ledger.Done {
		t.Errorf("the booklet is %s, want done", got.State)
	}

	// The nights and their steps are spans: each step a trace of its
	// own, linked to its night's span, its run a child of it.
	var nights, steps, runs int
	for _, s := range exp.GetSpans() {
		switch {
		case strings.HasPrefix(s.Name, "nightshift night "):
			nights++
		case s.Name == "nightshift step builder":
			steps++
			if len(s.Links) != 1 || s.Parent.IsValid() {
				t.Errorf("a step span has links %v and parent %v; want one link to its night and no parent", s.Links, s.Parent)
			}
		case s.Name == "invoke_agent nightshift":
			runs++
			if !s.Parent.IsValid() {
				t.Error("a builder's run span has no parent step")
			}
		}
	}
	if nights != 2 || steps < 2 || runs != steps {
		t.Errorf("%d night spans, %d step spans, %d run spans; want 2 nights and a run under each step", nights, steps, runs)
	}
}

func TestThePipelineSaysTheBuildersMCPServersSubagentsAndMemory(t *testing.T) {
	p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], subagents: true}
mcp:
  fs: {command: "npx -y @modelcontextprotocol/server-filesystem .", class: write, env: [NPM_CONFIG_REGISTRY]}
  issues: {url: "https://mcp.example.com/mcp", class: read}
`))
	if err != nil {
		t.Fatal(err)
	}
	servers, err := p.MCPServers()
	if err != nil || len(servers) != 2 || servers[0].Name != "fs" || servers[1].URL == "" {
		t.Fatalf("servers %+v (%v)", servers, err)
	}
	if len(servers[0].Env) != 1 || servers[0].Env[0] != "NPM_CONFIG_REGISTRY" {
		t.Errorf("fs's env = %q, want the variable its env: names", servers[0].Env)
	}
	if !p.BuilderMemory() || !p.Roles[ledger.Builder].Subagents {
		t.Error("memory is off by default, or subagents were not read")
	}
	if _, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], no_judge: true}
mcp:
  fs: {class: write}
`)); err == nil {
		t.Error("an MCP server with neither command nor url was accepted")
	}
}

func TestTheBuildersMemoryCanBeTurnedOff(t *testing.T) {
	p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], memory: false}
`))
	if err != nil || p.BuilderMemory() {
		t.Fatalf("memory: false: %v, %v", p.BuilderMemory(), err)
	}
	if _, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], no_judge: true}
  proposer: {models: [b1], memory: true}
`)); err == nil {
		t.Error("memory on the proposer was accepted")
	}
}

func TestTheBuildersRulesMayNameItsMCPMemoryAndSubagentTools(t *testing.T) {
	p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], subagents: true, approve: ["fs__write_file=deny", "remember=deny", "delegate_task=allow"]}
mcp:
  fs: {url: "http://127.0.0.1:1/mcp"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ValidatePolicy(p.BuilderToolNames()); err != nil {
		t.Fatalf("rules naming the builder's MCP, memory and subagent tools: %v", err)
	}
	p, err = night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], memory: false, approve: ["gh__create_issue=deny", "remember=deny"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.ValidatePolicy(p.BuilderToolNames()); err == nil {
		t.Fatal("rules naming a server the pipeline lacks, and remember without memory, were accepted")
	}
}
