package night_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// dusk is when the test nights start: the window opens at 22:00.
var dusk = time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)

const twoBuilders = `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
  b2: {provider: scripted, scenario: unused.yaml}
roles:
  # The tests of this fixture are about the night's mechanics: their
  # scripted builders answer no judge (verify_test.go judges).
  builder: {models: [b1, b2], no_judge: true}
`

type fixture struct {
	t     *testing.T
	l     *ledger.Ledger
	clk   *clock.Fake
	p     *night.Pipeline
	dir   string
	mu    sync.Mutex
	calls []call
}

// call is one builder attempt as the fake builder saw it.
type call struct {
	Task   string
	Worker string
}

func setup(t *testing.T, pipeline string) *fixture {
	t.Helper()
	p, err := night.ParsePipeline([]byte(pipeline))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p.WorkDir = filepath.Join(dir, "work")
	l, err := ledger.Open(context.Background(), filepath.Join(dir, "night.db"), ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(context.Background()) }) //nolint:errcheck // test cleanup
	return &fixture{t: t, l: l, clk: clock.NewFake(dusk), p: p, dir: dir}
}

func (f *fixture) add(title string, score float64) ledger.Task {
	f.t.Helper()
	task, err := f.l.AddTask(context.Background(), ledger.NewTask{Title: title, Score: &score}, f.clk.Now())
	if err != nil {
		f.t.Fatal(err)
	}
	return task
}

// builder returns a fake builder: each attempt takes step of simulated
// time and ends as outcome says for its task's title.
func (f *fixture) builder(step time.Duration, outcome func(a night.Assignment) night.Attempt) night.Builder {
	return night.BuilderFunc(func(_ context.Context, a night.Assignment) night.Attempt {
		f.mu.Lock()
		f.calls = append(f.calls, call{Task: a.Task.Title, Worker: a.Worker})
		f.mu.Unlock()
		f.clk.Advance(step)
		return outcome(a)
	})
}

func (f *fixture) run(b night.Builder, models map[string]llm.Model) *night.Summary {
	f.t.Helper()
	sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Builder: b, Models: models, Clock: f.clk})
	if err != nil {
		f.t.Fatal(err)
	}
	return sum
}

func done(night.Assignment) night.Attempt {
	return night.Attempt{Outcome: agent.Done, Answer: "built it", Tokens: 100}
}

// refusedThenEmpty is the seed's incident: the model asked for a tool it
// may not use, was refused, and gave no answer at all.
func refusedThenEmpty(night.Assignment) night.Attempt {
	return night.Attempt{Outcome: agent.Unverified, Checks: []string{"not-empty"}, Reason: "tool fetch_url is not allowed; then no answer", Tokens: 50}
}

func (f *fixture) failures(n ledger.Night) []ledger.Failure {
	f.t.Helper()
	fs, err := f.l.Failures(context.Background(), n.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return fs
}

func rules(fs []ledger.Failure) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Scope)+" "+f.Rule)
	}
	return out
}

// seedPipeline is seed 003's pipeline: a proposer, a judge and a builder
// with two models, a WIP cap and the builder's ceiling of 14.
const seedPipeline = `
window: {start: "22:00", end: "06:00"}
wip: 3
models:
  idea: {provider: scripted, scenario: unused.yaml}
  judge: {provider: scripted, scenario: unused.yaml}
  b1: {provider: scripted, scenario: unused.yaml}
  b2: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea]}
  judge: {models: [judge]}
  builder: {models: [b1, b2], ceiling: 14}
`

// proposer returns a model that proposes one new numbered idea per call.
func proposer() llm.Model {
	var mu sync.Mutex
	n := 0
	return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return &llm.Response{Content: []llm.Block{llm.Text(fmt.Sprintf("- idea %d", n))}, StopReason: llm.EndTurn,
			Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil
	})
}

// judge returns a model that scores every idea it is shown 5.
func judge() llm.Model {
	line := regexp.MustCompile(`(?m)^(\d+): `)
	return llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		var b strings.Builder
		for _, m := range line.FindAllStringSubmatch(req.Messages[0].Text(), -1) {
			fmt.Fprintf(&b, "%s: 5\n", m[1])
		}
		return &llm.Response{Content: []llm.Block{llm.Text(b.String())}, StopReason: llm.EndTurn}, nil
	})
}
