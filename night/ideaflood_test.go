package night_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// Regression (issue 25): one proposer reply of 3,000 `- idea` lines added
// 3,000 tasks under wip: 3. A proposer step keeps as many ideas as the
// WIP cap has room for (wip minus the tasks in progress), and its event
// counts the rest, dropped.
func TestAProposerReplyKeepsOnlyWhatTheWIPCapHasRoomFor(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
wip: 3
models:
  idea: {provider: scripted, scenario: unused.yaml}
  b: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea], ceiling: 1}
  builder: {models: [b], ceiling: 1}
`)
	f.add("already in progress", 5)
	flood := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		var b strings.Builder
		for i := range 3000 {
			fmt.Fprintf(&b, "- idea %d\n", i)
		}
		return &llm.Response{Content: []llm.Block{llm.Text(b.String())}, StopReason: llm.EndTurn}, nil
	})
	var rec event.Recorder
	_, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Clock: f.clk, Events: &rec,
		Builder: f.builder(time.Minute, done), Models: map[string]llm.Model{"idea": flood}})
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := f.l.Tasks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	proposed := 0
	for _, task := range tasks {
		if task.Source == string(ledger.Proposer) {
			proposed++
		}
	}
	if proposed != 2 {
		t.Errorf("the proposer added %d tasks, want 2: wip 3, one in progress", proposed)
	}
	var seen bool
	for _, e := range rec.Events() {
		if e.Type != "step" || e.Data["role"] != ledger.Proposer {
			continue
		}
		seen = true
		if e.Data["ideas"] != 2 || e.Data["dropped"] != 2998 || !strings.Contains(e.Detail, "dropped 2998 more at the WIP cap") {
			t.Errorf("the proposer's step event: %s %v", e.Line(), e.Data)
		}
	}
	if !seen {
		t.Error("no proposer step event")
	}
}

// One idea of a megabyte is a flood too: an idea is a task's title, cut
// to 300 characters.
func TestAProposersIdeaIsCutToATitlesLength(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  idea: {provider: scripted, scenario: unused.yaml}
  b: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea], ceiling: 1}
  builder: {models: [b], ceiling: 1}
`)
	huge := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: []llm.Block{llm.Text("- " + strings.Repeat("ő", 1<<20))}, StopReason: llm.EndTurn}, nil
	})
	if _, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Clock: f.clk,
		Builder: f.builder(time.Minute, done), Models: map[string]llm.Model{"idea": huge}}); err != nil {
		t.Fatal(err)
	}
	tasks, err := f.l.Tasks(context.Background())
	if err != nil || len(tasks) != 1 {
		t.Fatalf("%d tasks (%v), want 1", len(tasks), err)
	}
	if n := len([]rune(tasks[0].Title)); n != 300 || !strings.HasSuffix(tasks[0].Title, "…") {
		t.Errorf("the title has %d characters, want 300 ending with …", n)
	}
}
