package batch_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// scripted outcomes for a fake RunFunc, by task name.
func byName(results map[string]*agent.Result) batch.RunFunc {
	return func(_ context.Context, spec *taskfile.Spec, _ string) *agent.Result {
		return results[spec.Name]
	}
}

func TestSummary(t *testing.T) {
	results := map[string]*agent.Result{
		"ok-1":   {Outcome: agent.Done, Steps: 4},
		"ok-2":   {Outcome: agent.Done, Steps: 3, FailsByCheck: map[string]int{"min-chars": 1}},
		"half":   {Outcome: agent.Unverified, Steps: 9, Reason: "only 3 of the 5 steps", FailsByCheck: map[string]int{"min-chars": 2, "judge": 1}},
		"broke":  {Outcome: agent.APIFailure, Steps: 1, Reason: "retries exhausted: 429 rate limited"},
		"looped": {Outcome: agent.StepLimit, Steps: 20, Reason: "the step brake tripped at 20 steps"},
	}
	var specs []*taskfile.Spec
	for _, n := range []string{"ok-1", "half", "broke", "ok-2", "looped"} {
		specs = append(specs, &taskfile.Spec{Name: n, Task: "t"})
	}
	sum, err := batch.Run(context.Background(), batch.Config{Run: byName(results), WorkDir: t.TempDir(), Clock: clock.NewFake(epoch)}, specs)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("tasks keep the order they were given in", func(t *testing.T) {
		var names []string
		for _, tr := range sum.Tasks {
			names = append(names, tr.Name)
		}
		if diff := cmp.Diff([]string{"ok-1", "half", "broke", "ok-2", "looped"}, names); diff != "" {
			t.Errorf("names (-want +got):\n%s", diff)
		}
	})
	t.Run("tasks are counted done, unverified or failed", func(t *testing.T) {
		got := [3]int{sum.Done, sum.Unverified, sum.Failed}
		if got != [3]int{2, 1, 2} {
			t.Errorf("done, unverified, failed = %v, want [2 1 2]", got)
		}
	})
	t.Run("FAILs are counted by the check that decided them, over every task", func(t *testing.T) {
		if diff := cmp.Diff(map[string]int{"min-chars": 3, "judge": 1}, sum.FailsByCheck); diff != "" {
			t.Errorf("FailsByCheck (-want +got):\n%s", diff)
		}
	})
	t.Run("a batch with any task not done is not-all-done", func(t *testing.T) {
		if sum.AllDone() || sum.Outcome() != agent.NotAllDone {
			t.Errorf("AllDone = %t, Outcome = %s; want false, not-all-done", sum.AllDone(), sum.Outcome())
		}
	})
	t.Run("the table gives the reason of every task not done", func(t *testing.T) {
		var b bytes.Buffer
		if err := sum.WriteTable(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"only 3 of the 5 steps", "retries exhausted: 429 rate limited", "the step brake tripped",
			"done 2 · unverified 1 · failed 2 · 5 tasks",
			"FAILs by check: min-chars 3, judge 1",
			"workspaces: " + sum.WorkDir,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("table lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("a batch whose tasks all end done is done", func(t *testing.T) {
		all, err := batch.Run(context.Background(), batch.Config{Run: byName(results), WorkDir: t.TempDir()},
			[]*taskfile.Spec{{Name: "ok-1", Task: "t"}, {Name: "ok-2", Task: "t"}})
		if err != nil {
			t.Fatal(err)
		}
		if !all.AllDone() || all.Outcome() != agent.Done {
			t.Errorf("AllDone = %t, Outcome = %s; want true, done", all.AllDone(), all.Outcome())
		}
	})
}

func TestWorkspaces(t *testing.T) {
	src := t.TempDir()
	for p, content := range map[string]string{
		"README.md":               "# readme\n",
		"docs/install.md":         "1. go install\n",
		".nightshift/runs/x.json": "{}",
	} {
		os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(content), 0o644)
	}
	var mu sync.Mutex
	seen := map[string][]string{} // task name -> files in its workspace
	run := func(_ context.Context, spec *taskfile.Spec, dir string) *agent.Result {
		var files []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		// Each task writes to its own copy: the others must not see it.
		os.WriteFile(filepath.Join(dir, "mine.txt"), []byte(spec.Name), 0o644)
		mu.Lock()
		seen[spec.Name] = files
		mu.Unlock()
		return &agent.Result{Outcome: agent.Done}
	}
	base := filepath.Dir(src)
	specs := []*taskfile.Spec{
		{Name: "copy/one", Task: "t", Dir: filepath.Base(src), BaseDir: base},
		{Name: "copy two", Task: "t", Dir: src, BaseDir: "elsewhere"},
		{Name: "empty", Task: "t"},
	}
	work := t.TempDir()
	sum, err := batch.Run(context.Background(), batch.Config{Run: run, WorkDir: work, Parallel: 3}, specs)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a task's dir is copied without its state folder, an absolute dir as is", func(t *testing.T) {
		want := []string{"README.md", "docs/install.md"}
		for _, n := range []string{"copy/one", "copy two"} {
			if diff := cmp.Diff(want, seen[n]); diff != "" {
				t.Errorf("%s: files (-want +got):\n%s", n, diff)
			}
		}
	})
	t.Run("a task without a dir gets an empty folder", func(t *testing.T) {
		if len(seen["empty"]) != 0 {
			t.Errorf("files = %v, want none", seen["empty"])
		}
	})
	t.Run("workspaces are named by position and a path-safe name", func(t *testing.T) {
		var dirs []string
		for _, tr := range sum.Tasks {
			rel, _ := filepath.Rel(work, tr.Dir)
			dirs = append(dirs, rel)
		}
		if diff := cmp.Diff([]string{"001-copy-one", "002-copy-two", "003-empty"}, dirs); diff != "" {
			t.Errorf("workspaces (-want +got):\n%s", diff)
		}
	})
	t.Run("the original is untouched", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(src, "mine.txt")); !os.IsNotExist(err) {
			t.Errorf("a task wrote into the original folder (stat: %v)", err)
		}
	})
	t.Run("a missing dir fails that task alone", func(t *testing.T) {
		sum, err := batch.Run(context.Background(), batch.Config{Run: run, WorkDir: t.TempDir()}, []*taskfile.Spec{
			{Name: "gone", Task: "t", Dir: "no-such-folder", BaseDir: src},
			{Name: "fine", Task: "t"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := sum.Tasks[0].Result; got.Outcome != agent.Failed || !strings.Contains(got.Reason, "no-such-folder") {
			t.Errorf("missing dir: %s %q, want error naming the folder", got.Outcome, got.Reason)
		}
		if sum.Tasks[1].Result.Outcome != agent.Done {
			t.Errorf("the other task: %s, want done", sum.Tasks[1].Result.Outcome)
		}
	})
	t.Run("a work folder that is not empty is refused before anything runs", func(t *testing.T) {
		if _, err := batch.Run(context.Background(), batch.Config{Run: run, WorkDir: work}, specs); err == nil {
			t.Error("Run reused a non-empty work folder")
		}
	})
}

func TestParallelism(t *testing.T) {
	const parallel, n = 3, 10
	var (
		mu              sync.Mutex
		active, highest int
		release         = make(chan struct{})
		once            sync.Once
	)
	run := func(context.Context, *taskfile.Spec, string) *agent.Result {
		mu.Lock()
		active++
		highest = max(highest, active)
		if active == parallel {
			once.Do(func() { close(release) })
		}
		mu.Unlock()
		<-release // the first tasks hold on until parallel of them run at once
		mu.Lock()
		active--
		mu.Unlock()
		return &agent.Result{Outcome: agent.Done}
	}
	sum, err := batch.Run(context.Background(), batch.Config{Run: run, WorkDir: t.TempDir(), Parallel: parallel}, tasks(n))
	if err != nil {
		t.Fatal(err)
	}
	if highest != parallel || !sum.AllDone() {
		t.Errorf("at most %d ran at once (all done: %t), want exactly %d", highest, sum.AllDone(), parallel)
	}
}

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	run := func(ctx context.Context, spec *taskfile.Spec, _ string) *agent.Result {
		cancel() // the first task's run is where the user presses ^C
		<-ctx.Done()
		return &agent.Result{Outcome: agent.Interrupted, Reason: "interrupted"}
	}
	sum, err := batch.Run(ctx, batch.Config{Run: run, WorkDir: t.TempDir(), Parallel: 1}, tasks(4))
	if err != nil {
		t.Fatal(err)
	}
	var got []agent.Outcome
	for _, tr := range sum.Tasks {
		got = append(got, tr.Result.Outcome)
	}
	want := []agent.Outcome{agent.Interrupted, agent.Interrupted, agent.Interrupted, agent.Interrupted}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if !strings.Contains(sum.Tasks[3].Result.Reason, "not started") {
		t.Errorf("a task never reached says %q, want it was not started", sum.Tasks[3].Result.Reason)
	}
}

func TestProgress(t *testing.T) {
	results := map[string]*agent.Result{
		"a": {Outcome: agent.Done, Steps: 4},
		"b": {Outcome: agent.APIFailure, Steps: 1, Reason: "bad request"},
	}
	specs := []*taskfile.Spec{{Name: "a", Task: "t"}, {Name: "b", Task: "t"}}
	t.Run("off a terminal, one plain line per finished task", func(t *testing.T) {
		var b bytes.Buffer
		batch.Run(context.Background(), batch.Config{Run: byName(results), WorkDir: t.TempDir(), Progress: &b, Parallel: 1, Clock: clock.NewFake(epoch)}, specs)
		want := "[batch · 1/2 a done steps=4 0s]\n[batch · 2/2 b api-failure steps=1 0s: bad request]\n"
		if diff := cmp.Diff(want, b.String()); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
	})
	t.Run("on a terminal, a bar redrawn on one line and a line for each task not done", func(t *testing.T) {
		var b bytes.Buffer
		batch.Run(context.Background(), batch.Config{Run: byName(results), WorkDir: t.TempDir(), Progress: &b, Live: true, Parallel: 1, Clock: clock.NewFake(epoch)}, specs)
		out := b.String()
		if strings.Count(out, "\n") != 2 || !strings.Contains(out, "\r\x1b[K") {
			t.Errorf("want redraws with \\r and exactly two newlines (the failure and the end), got %q", out)
		}
		last := out[strings.LastIndex(out, "\r\x1b[K"):]
		if !strings.Contains(last, "2/2 · running 0 · done 1 · unverified 0 · failed 1") {
			t.Errorf("last redraw = %q, want the final counts", last)
		}
		if !strings.Contains(out, "b api-failure steps=1 0s: bad request]\n") {
			t.Errorf("the failed task has no line of its own: %q", out)
		}
	})
}
