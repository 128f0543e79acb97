package night_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/nightdemo"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// TestDemoNight runs the demo night end to end on the scripted model with
// the real agent builder: the booklet fails the seed's way (its command is
// refused by the pipeline's gate, then the model says nothing), is
// skipped, and the night goes on: the proposer adds ideas, the judge scores
// each of them, and the builder takes the best-scored to its ceiling.
func TestDemoNight(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, err := nightdemo.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := night.LoadPipeline(path)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(nightdemo.Start)
	models, err := night.BuildModels(p, clk, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ctx, filepath.Join(dir, "night.db"), ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck // test cleanup
	book, err := l.AddTask(ctx, ledger.NewTask{Title: nightdemo.Task, Score: ptr(9.0)}, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	rec := &event.Recorder{}
	sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Models: models, Clock: clk, Events: rec})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Night.End != ledger.CeilingsReached || sum.Finished[ledger.Builder] != 14 {
		t.Errorf("demo night ended %s (%s) after %d builder steps", sum.Night.End, sum.Night.Reason, sum.Finished[ledger.Builder])
	}
	fs, _ := l.Failures(ctx, sum.Night.ID)
	if len(fs) != 1 || fs[0].Task != book.ID || fs[0].Rule != "empty-answer" || fs[0].Scope != ledger.TaskScope {
		t.Fatalf("failures = %+v, want the booklet's empty answer only, charged to the task", fs)
	}
	if want := "run_command was refused by policy (rule run_command=deny)"; !strings.Contains(fs[0].Reason, want) {
		t.Errorf("the failure says %q; want it to name the refusal: %q", fs[0].Reason, want)
	}
	if sum.Finished[ledger.Judge] == 0 || sum.Finished[ledger.Judge] < sum.Finished[ledger.Proposer]-1 {
		t.Errorf("steps finished %v: the judge must score the proposer's ideas as they come", sum.Finished)
	}
	tasks, _ := l.Tasks(ctx)
	for _, task := range tasks {
		if task.State == ledger.Done && !task.Scored {
			t.Errorf("task %d %q was built without a score", task.ID, task.Title)
		}
	}
	// The builder follows the judge: the moths page (8) before the tides
	// chart (6), though the chart was proposed first.
	var built []string
	var proposerSaid []string
	for _, e := range rec.Events() {
		if e.Type != "step" {
			continue
		}
		switch e.Data["role"] {
		case ledger.Builder:
			built = append(built, fmt.Sprint(e.Data["task"]))
		case ledger.Proposer:
			proposerSaid = append(proposerSaid, e.Detail)
		}
	}
	if i, j := slices.Index(built, "3"), slices.Index(built, "2"); i < 0 || j < 0 || i > j {
		t.Errorf("builder order %v: want task 3 (scored 8) before task 2 (scored 6)", built)
	}
	if len(proposerSaid) == 0 || !strings.Contains(proposerSaid[0], `added "a chart of the tides"`) {
		t.Errorf("the proposer's first step event says %q; want the idea it added", proposerSaid)
	}
	data, err := os.ReadFile(filepath.Join(dir, "work", "task-2", "result.md"))
	if err != nil || !strings.Contains(string(data), "Made overnight") {
		t.Errorf("the second task's workspace holds %q, %v", data, err)
	}
}

func ptr[T any](v T) *T { return &v }
