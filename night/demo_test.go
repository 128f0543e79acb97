package night_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// TestDemoNight runs the demo night end to end on the scripted model with
// the real agent builder: the booklet fails the seed's way, is skipped,
// and the builder goes on to its ceiling.
func TestDemoNight(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path, err := night.WriteDemo(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := night.LoadPipeline(path)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(night.DemoStart)
	models, err := night.BuildModels(p, clk, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ctx, filepath.Join(dir, "night.db"), ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck // test cleanup
	book, err := l.AddTask(ctx, ledger.NewTask{Title: night.DemoTask, Score: ptr(9.0)}, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	sum, err := night.Run(ctx, night.Config{Pipeline: p, Ledger: l, Models: models, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Night.End != ledger.CeilingsReached || sum.Finished[ledger.Builder] != 14 {
		t.Errorf("demo night ended %s (%s) after %d builder steps", sum.Night.End, sum.Night.Reason, sum.Finished[ledger.Builder])
	}
	fs, _ := l.Failures(ctx, sum.Night.ID)
	if len(fs) != 1 || fs[0].Task != book.ID || fs[0].Rule != "empty-answer" {
		t.Errorf("failures = %+v, want the booklet's empty answer only", fs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "work", "task-2", "result.md"))
	if err != nil || !strings.Contains(string(data), "Made overnight") {
		t.Errorf("the second task's workspace holds %q, %v", data, err)
	}
}

func ptr[T any](v T) *T { return &v }
