package night_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// monthPipeline is seed 003's pipeline with a WIP cap of 2, escalation
// from m1 to m2, and parking with a deadline of 2 hours.
const monthPipeline = `
window: {start: "22:00", end: "06:00"}
wip: 2
park: {deadline: 2h, past_deadline: fail}
models:
  idea:  {provider: scripted, scenario: ideas.yaml}
  judge: {provider: scripted, scenario: judge.yaml}
  m1:    {provider: scripted, scenario: m1.yaml}
  m2:    {provider: scripted, scenario: m2.yaml}
roles:
  proposer: {models: [idea], ceiling: 8}
  judge:    {models: [judge]}
  builder:  {models: [m1, m2], ceiling: 6, max_steps: 6, no_judge: true}
`

// monthFiles are the pipeline's scenarios: the proposer proposes the first
// of 30 ideas not in the backlog yet (then nothing); the judge scores what
// it is shown; m1 builds in 50 minutes, except that it gives no answer on
// the tricky chart (which escalates to m2 after two nights), asks to run a
// command for the fetched book (which parks it, then fails at its
// deadline), and both models are refused on quota on the atlas.
func monthFiles() map[string]string {
	var ideas strings.Builder
	ideas.WriteString("loop: true\nturns:\n  - cases:\n")
	for i := 1; i <= 30; i++ {
		title := fmt.Sprintf("idea %02d", i)
		switch i {
		case 3:
			title = "a tricky chart"
		case 5:
			title = "a fetched book"
		}
		fmt.Fprintf(&ideas, "      - when: {not_contains: %q}\n        text: %q\n", title, "- "+title)
	}
	ideas.WriteString("      - empty: true\n")
	var judge strings.Builder
	judge.WriteString("loop: true\nturns:\n  - text: |\n")
	for id := 1; id <= 60; id++ {
		fmt.Fprintf(&judge, "      %d: %d\n", id, 3+id%5)
	}
	const build = `  - name: build
    turns:
      - tool_calls: [{name: write_file, input: {path: result.md, content: "Made overnight.\n"}}]
        delay: 40m
      - {text: "Wrote result.md.", delay: 10m}
`
	const atlas = `  - name: atlas
    when: {contains: "an atlas"}
    turns:
      - {status: 429, error: {type: insufficient_quota, message: "You exceeded your current quota"}}
`
	return map[string]string{
		"pipeline.yaml": monthPipeline,
		"ideas.yaml":    ideas.String(),
		"judge.yaml":    judge.String(),
		"m1.yaml": "loop: true\nscripts:\n" + atlas + `  - name: tricky
    when: {contains: "a tricky chart"}
    turns:
      - {empty: true, delay: 30m}
  - name: fetch
    when: {contains: "a fetched book"}
    turns:
      - tool_calls: [{name: run_command, input: {command: "curl -O https://example.org/book.txt"}}]
        delay: 10m
` + build,
		"m2.yaml": "loop: true\nscripts:\n" + atlas + build,
	}
}

// TestAMonthOfNightsOnTheSimulatedClock is issue 12's acceptance: 30
// nights of a pipeline with escalation, parking deadlines and a WIP cap
// run on simulated time, and the report's two numbers over those nights
// (cut short, out of work, and their sum) match the ledger.
func TestAMonthOfNightsOnTheSimulatedClock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for name, content := range monthFiles() {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := night.LoadPipeline(filepath.Join(dir, "pipeline.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	first := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewFake(p.Window.StartOn(first))
	models, err := night.BuildModels(p, clk, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ctx, filepath.Join(dir, "night.db"), ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck // test cleanup
	score := func(v float64) *float64 { return &v }
	if _, err := l.AddTask(ctx, ledger.NewTask{Title: "a booklet", Score: score(9)}, clk.Now()); err != nil {
		t.Fatal(err)
	}
	var atlas ledger.Task
	for i := 1; i <= 30; i++ {
		switch i {
		case 12:
			// A person adds a task that no builder model may work on.
			if atlas, err = l.AddTask(ctx, ledger.NewTask{Title: "an atlas", Score: score(10)}, clk.Now()); err != nil {
				t.Fatal(err)
			}
		case 13:
			// The morning report showed it; the person gives it up.
			if err := l.SetTaskState(ctx, atlas.ID, ledger.Failed, clk.Now()); err != nil {
				t.Fatal(err)
			}
		}
		sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Models: models, Clock: clk})
		if err != nil {
			t.Fatalf("night %d: %v", i, err)
		}
		if now := clk.Now(); now.Before(sum.Night.WindowEnd) {
			clk.Advance(sum.Night.WindowEnd.Sub(now))
		}
	}

	nights, err := l.Nights(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(nights) != 30 {
		t.Fatalf("%d nights in the ledger, want 30", len(nights))
	}
	// The two numbers, counted from the ledger's own rows: how each night
	// ended and the stops it was resumed after.
	var cut, out []string
	ends := map[ledger.EndKind]int{}
	for _, n := range nights {
		ends[n.End]++
		switch {
		case n.End == ledger.CutShort || n.End == ledger.SystemStopped || len(n.Stops) > 0:
			cut = append(cut, n.Name)
		case n.End == ledger.OutOfWork:
			out = append(out, n.Name)
		}
	}
	if len(cut) == 0 || len(out) == 0 {
		t.Errorf("ends %v: the month should hold nights of both kinds", ends)
	}
	r, err := report.Build(ctx, l, clk.Now(), report.Config{Nights: 30})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.JSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Nights []struct {
			Name      string `json:"name"`
			CutShort  bool   `json:"cut_short"`
			OutOfWork bool   `json:"out_of_work"`
		} `json:"nights"`
		Across struct {
			CutShort   int `json:"cut_short"`
			OutOfWork  int `json:"out_of_work"`
			EndedEarly int `json:"ended_early"`
		} `json:"across"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Across.CutShort != len(cut) || got.Across.OutOfWork != len(out) || got.Across.EndedEarly != len(cut)+len(out) {
		t.Errorf("the report counts %d cut short, %d out of work, %d ended early; the ledger %d, %d, %d",
			got.Across.CutShort, got.Across.OutOfWork, got.Across.EndedEarly, len(cut), len(out), len(cut)+len(out))
	}
	isCut, isOut := map[string]bool{}, map[string]bool{}
	for _, n := range cut {
		isCut[n] = true
	}
	for _, n := range out {
		isOut[n] = true
	}
	for _, n := range got.Nights {
		if n.CutShort != isCut[n.Name] || n.OutOfWork != isOut[n.Name] {
			t.Errorf("night %s: the report says cut short %v, out of work %v; the ledger %v, %v", n.Name, n.CutShort, n.OutOfWork, isCut[n.Name], isOut[n.Name])
		}
	}

	// What the month was made of.
	tasks, _ := l.Tasks(ctx)
	byTitle := map[string]ledger.Task{}
	for _, task := range tasks {
		byTitle[task.Title] = task
	}
	if tc := byTitle["a tricky chart"]; tc.Level != 1 || tc.State != ledger.Done {
		t.Errorf("the tricky chart is at level %d, %s; want escalated to m2 and done", tc.Level, tc.State)
	}
	if fb := byTitle["a fetched book"]; fb.State != ledger.Failed {
		t.Errorf("the fetched book is %s; want failed at its parking deadline", fb.State)
	}
	fs, _ := l.TaskFailures(ctx, byTitle["a fetched book"].ID)
	if len(fs) == 0 || fs[len(fs)-1].Rule != "park-deadline" {
		t.Errorf("the fetched book's failures %+v; want the parking deadline's", fs)
	}
	t.Logf("30 nights: %v; cut short %v; out of work %v", ends, cut, out)
}
