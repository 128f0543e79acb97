package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/runspec"
)

// fiveFiles writes n1.md … n5.md, one a step, then says it is done: six
// model calls of 2000 tokens in and 200 out each.
const fiveFiles = `
turns:
  - {tool_calls: [{name: write_file, input: {path: n1.md, content: "one\n"}}], usage: {input: 2000, output: 200}}
  - {tool_calls: [{name: write_file, input: {path: n2.md, content: "two\n"}}], usage: {input: 2000, output: 200}}
  - {tool_calls: [{name: write_file, input: {path: n3.md, content: "three\n"}}], usage: {input: 2000, output: 200}}
  - {tool_calls: [{name: write_file, input: {path: n4.md, content: "four\n"}}], usage: {input: 2000, output: 200}}
  - {tool_calls: [{name: write_file, input: {path: n5.md, content: "five\n"}}], usage: {input: 2000, output: 200}}
  - {text: "Wrote five files.", usage: {input: 2000, output: 200}}
`

// model is a fresh scripted model playing yaml on f's clock, as a new
// process resuming the run would have.
func (f *fixture) model(t *testing.T, yaml string) llm.Model {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return scripted.New(sc, scripted.Config{Clock: f.clock})
}

// resume resumes run with f's config and model m.
func (f *fixture) resume(t *testing.T, m llm.Model, run string) *lifecycle.Result {
	t.Helper()
	cfg := f.cfg
	cfg.Model = m
	res, err := lifecycle.Resume(context.Background(), cfg, run)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (f *fixture) files(t *testing.T, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, f.read(t, n))
	}
	return out
}

// paused checks that run is paused in f's workspace: resumable, its
// journal pending.
func (f *fixture) paused(t *testing.T, res *lifecycle.Result) {
	t.Helper()
	if !res.Suspended || !res.Kept || res.Rollback != nil {
		t.Errorf("suspended %v, kept %v, rollback %v; want the run paused with its changes", res.Suspended, res.Kept, res.Rollback)
	}
	if got, err := lifecycle.Paused(f.cfg); err != nil || !cmp.Equal(got, []string{res.RunID}) {
		t.Errorf("paused runs %v (%v), want %s", got, err, res.RunID)
	}
	if res.Record == nil || !strings.HasSuffix(res.Record.Checkpoint, filepath.Join(res.RunID, "log.jsonl")) {
		t.Errorf("the record does not name the checkpoint")
	}
}

// finished checks that nothing of a run is left to resume or recover.
func (f *fixture) finished(t *testing.T, res *lifecycle.Result) {
	t.Helper()
	if pending, _ := journal.Pending(res.StateDir); len(pending) != 0 {
		t.Errorf("journals left pending: %v", pending)
	}
	if _, err := os.Stat(filepath.Join(res.StateDir, "checkpoints", res.RunID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the checkpoint of a finished run is still there (%v)", err)
	}
}

func TestABudgetCrossedMidRunStopsBeforeTheCallThatWouldCrossItAndResumes(t *testing.T) {
	f := setup(t, fiveFiles)
	f.cfg.Spec.BudgetTokens = 7000
	res := f.run(t)
	if res.Outcome != agent.Budget {
		t.Fatalf("outcome %s (%s), want budget", res.Outcome, res.Reason)
	}
	// 3 calls: 6600 tokens; the fourth would make about 8800.
	if res.Steps != 3 || res.Usage.Total() != 6600 {
		t.Errorf("%d steps, %d tokens; want 3 and 6600: the call that would cross 7000 is not made", res.Steps, res.Usage.Total())
	}
	if got := f.files(t, "n1.md", "n3.md", "n4.md"); !cmp.Equal(got, []string{"one\n", "three\n", "(missing)"}) {
		t.Errorf("files %q, want the first three steps' changes kept", got)
	}
	f.paused(t, res)
	if _, err := lifecycle.Run(context.Background(), f.cfg, "another task"); !errors.Is(err, journal.ErrNeedsRecovery) {
		t.Errorf("a new run in the paused workspace: %v, want ErrNeedsRecovery", err)
	}
	if types := f.events.Types(); !strings.Contains(strings.Join(types, " "), "budget checkpoint outcome") {
		t.Errorf("events end %v, want budget, checkpoint, outcome", types[len(types)-3:])
	}

	t.Run("resumed with a higher budget it finishes with 3 more calls", func(t *testing.T) {
		f.cfg.Spec.BudgetTokens = 20000
		res2 := f.resume(t, f.model(t, fiveFiles), res.RunID)
		if res2.Outcome != agent.Done || res2.Steps != 6 || res2.Calls != 3 {
			t.Fatalf("outcome %s (%s) after %d steps, %d calls; want done after 6, 3 of them now", res2.Outcome, res2.Reason, res2.Steps, res2.Calls)
		}
		if res2.Usage.Total() != 6*2200 {
			t.Errorf("usage %d, want the first part's 6600 counted in", res2.Usage.Total())
		}
		if got := f.files(t, "n1.md", "n2.md", "n3.md", "n4.md", "n5.md"); !cmp.Equal(got, []string{"one\n", "two\n", "three\n", "four\n", "five\n"}) {
			t.Errorf("files %q", got)
		}
		f.finished(t, res2)
		if n := countEvents(res2.Record.Events, "start"); n != 2 {
			t.Errorf("the record holds %d start events, want both parts'", n)
		}
	})
}

func countEvents(evs []event.Event, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func TestTimeoutPausesARunWhoseModelTakesTooLong(t *testing.T) {
	const slow = `
turns:
  - tool_calls: [{name: write_file, input: {path: notes.md, content: "new\n"}}]
  - {delay: 4h, text: "Rewrote notes.md."}
`
	f := setup(t, slow)
	f.cfg.Spec.Timeout = runspec.Duration(time.Hour)
	res := f.run(t)
	if res.Outcome != agent.Timeout || res.Steps != 1 {
		t.Fatalf("outcome %s (%s) after %d steps, want timeout after 1", res.Outcome, res.Reason, res.Steps)
	}
	if got := f.clock.Now().Sub(dusk); got != time.Hour {
		t.Errorf("the run ended %s in, want at its limit", got)
	}
	f.paused(t, res)
	if f.read(t, "notes.md") != "new\n" {
		t.Error("the paused run's change is gone")
	}
	f.cfg.Spec.Timeout = 0
	res2 := f.resume(t, f.model(t, slow), res.RunID)
	if res2.Outcome != agent.Done || res2.Calls != 1 || f.read(t, "notes.md") != "new\n" {
		t.Fatalf("resumed: outcome %s (%s), %d calls", res2.Outcome, res2.Reason, res2.Calls)
	}
	f.finished(t, res2)
}

func TestAnInterruptPausesTheRunUnlessRollbackOnInterrupt(t *testing.T) {
	for _, rollback := range []bool{false, true} {
		t.Run(fmt.Sprintf("rollback on interrupt %v", rollback), func(t *testing.T) {
			f := setup(t, writeThenDone)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// A person presses Ctrl-C once the write is done.
			f.cfg.Events = event.Multi(f.events, event.SinkFunc(func(e event.Event) {
				if e.Type == "checkpoint" {
					cancel()
				}
			}))
			f.cfg.Spec.RollbackOnInterrupt = rollback
			res, err := lifecycle.Run(ctx, f.cfg, "work on notes.md")
			if err != nil || res.Outcome != agent.Interrupted {
				t.Fatalf("Run = %v, %v; want interrupted", res, err)
			}
			if rollback {
				if res.Suspended || f.read(t, "notes.md") != "old\n" {
					t.Errorf("suspended %v, notes.md %q; want rolled back", res.Suspended, f.read(t, "notes.md"))
				}
				f.finished(t, res)
				return
			}
			f.paused(t, res)
			if f.read(t, "notes.md") != "new\n" {
				t.Errorf("notes.md = %q, want the change kept for the resume", f.read(t, "notes.md"))
			}
		})
	}
}

func TestFailedOutcomesStillRollBackAndKeepCommitsEveryOutcome(t *testing.T) {
	t.Run("step-limit rolls back, and nothing is left to resume", func(t *testing.T) {
		f := setup(t, fiveFiles)
		f.cfg.Spec.MaxSteps = 2
		res := f.run(t)
		if res.Outcome != agent.StepLimit || res.Rollback == nil || f.read(t, "n1.md") != "(missing)" {
			t.Fatalf("outcome %s, rollback %v, n1.md %q", res.Outcome, res.Rollback, f.read(t, "n1.md"))
		}
		f.finished(t, res)
	})
	t.Run("with Keep a budget stop commits: kept, not resumable", func(t *testing.T) {
		f := setup(t, fiveFiles)
		f.cfg.Spec.BudgetTokens = 2500
		f.cfg.Spec.Keep = true
		res := f.run(t)
		if res.Outcome != agent.Budget || res.Suspended || !res.Kept || f.read(t, "n1.md") != "one\n" {
			t.Fatalf("outcome %s, suspended %v, kept %v", res.Outcome, res.Suspended, res.Kept)
		}
		f.finished(t, res)
	})
}

func TestRecoverUndoesAPausedRun(t *testing.T) {
	f := setup(t, fiveFiles)
	f.cfg.Spec.BudgetTokens = 5000
	res := f.run(t)
	if res.Outcome != agent.Budget || res.Steps != 2 {
		t.Fatalf("outcome %s", res.Outcome)
	}
	if _, err := lifecycle.Recover(f.dir, ""); err != nil {
		t.Fatal(err)
	}
	if got := f.files(t, "n1.md", "n2.md", "notes.md"); !cmp.Equal(got, []string{"(missing)", "(missing)", "old\n"}) {
		t.Errorf("files after recover %q, want the workspace before the run", got)
	}
	f.finished(t, res)
	if _, err := lifecycle.Resume(context.Background(), f.cfg, res.RunID); !errors.Is(err, lifecycle.ErrNoCheckpoint) {
		t.Errorf("resuming an undone run: %v, want ErrNoCheckpoint", err)
	}
}

// startChild runs fiveFiles-like yaml in dir in a child process that
// kills itself at the first crash point named crash, and waits for it.
func startChild(t *testing.T, dir, yaml, run, crash string) {
	t.Helper()
	scenario := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(scenario, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+dir, childScenario+"="+scenario, childCrash+"="+crash, childRun+"="+run)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != -1 {
		t.Fatalf("the child ended with %v, want killed by its crash point:\n%s", err, out)
	}
}

func TestAWriteFileWhoseResultWasLostIsNotAppliedTwice(t *testing.T) {
	// The child writes notes.md and dies before the write's result is
	// recorded. The resumed run is told the outcome is unknown, reads
	// notes.md back as it was before the call (the write was undone), and
	// writes it again: the one application that stands.
	const rewrite = `
turns:
  - tool_calls: [{name: write_file, input: {path: notes.md, content: "new\n"}}]
  - cases:
      - when: {in: last, contains: "outcome of this write_file call is unknown"}
        tool_calls: [{name: read_file, input: {path: notes.md}}]
  - cases:
      - when: {in: last, contains: "old"}
        tool_calls: [{name: write_file, input: {path: notes.md, content: "new\n"}}]
  - text: Rewrote notes.md.
`
	f := setup(t, rewrite)
	startChild(t, f.dir, rewrite, "r-lost", "lifecycle: tool returned, result not recorded")
	if got := f.read(t, "notes.md"); got != "new\n" {
		t.Fatalf("notes.md = %q after the kill, want the child's write applied", got)
	}
	res := f.resume(t, f.model(t, rewrite), "r-lost")
	if res.Outcome != agent.Done || res.Calls != 3 {
		t.Fatalf("outcome %s (%s) after %d calls; want done after 3", res.Outcome, res.Reason, res.Calls)
	}
	if got := f.read(t, "notes.md"); got != "new\n" {
		t.Errorf("notes.md = %q", got)
	}
	var writes []string
	for _, e := range res.Record.Events {
		if e.Type == "tool" && e.Data["tool"] == "write_file" {
			writes = append(writes, fmt.Sprintf("unknown=%v", e.Data["unknown"]))
		}
	}
	if !cmp.Equal(writes, []string{"unknown=true", "unknown=<nil>"}) {
		t.Errorf("write_file events of the resumed run %v, want the lost one answered as unknown, then the one rewrite", writes)
	}
	f.finished(t, res)

	t.Run("and a rollback after the resume restores the state before the run", func(t *testing.T) {
		g := setup(t, rewrite)
		startChild(t, g.dir, rewrite, "r-lost2", "lifecycle: tool returned, result not recorded")
		g.cfg.Spec.MaxSteps = 2 // the resumed run ends step-limit: rolled back
		res := g.resume(t, g.model(t, rewrite), "r-lost2")
		if res.Outcome != agent.StepLimit || g.read(t, "notes.md") != "old\n" || len(res.Rollback.Conflicts) != 0 {
			t.Errorf("outcome %s, notes.md %q; want rolled back to the state before the run, no conflict", res.Outcome, g.read(t, "notes.md"))
		}
	})
}

func TestAnEditWhoseResultWasLostIsAppliedOnce(t *testing.T) {
	// An edit that was applied twice would add its line twice.
	const appendOnce = `
turns:
  - tool_calls: [{name: edit_file, input: {path: notes.md, old: "old", new: "old\nadded"}}]
  - cases:
      - when: {in: last, contains: "outcome of this edit_file call is unknown"}
        tool_calls: [{name: edit_file, input: {path: notes.md, old: "old", new: "old\nadded"}}]
  - text: Added the line.
`
	f := setup(t, appendOnce)
	startChild(t, f.dir, appendOnce, "r-edit", "lifecycle: tool returned, result not recorded")
	if got := f.read(t, "notes.md"); got != "old\nadded\n" {
		t.Fatalf("notes.md = %q after the kill, want the child's edit applied", got)
	}
	res := f.resume(t, f.model(t, appendOnce), "r-edit")
	if res.Outcome != agent.Done || f.read(t, "notes.md") != "old\nadded\n" {
		t.Errorf("outcome %s (%s), notes.md %q; want done with the line added once", res.Outcome, res.Reason, f.read(t, "notes.md"))
	}
	f.finished(t, res)
}

func TestAResultRecordedBeforeTheDeathStands(t *testing.T) {
	// The child dies after recording the edit's result, before dropping
	// the call's journal: the edit stands and is not undone.
	f := setup(t, writeThenDone)
	startChild(t, f.dir, writeThenDone, "r-kept", "lifecycle: result recorded, call journal not dropped")
	res := f.resume(t, f.model(t, writeThenDone), "r-kept")
	if res.Outcome != agent.Done || res.Calls != 1 || f.read(t, "notes.md") != "new\n" {
		t.Fatalf("outcome %s (%s), %d calls, notes.md %q", res.Outcome, res.Reason, res.Calls, f.read(t, "notes.md"))
	}
	f.finished(t, res)
}
