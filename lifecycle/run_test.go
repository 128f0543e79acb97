package lifecycle_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

var dusk = time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)

type fixture struct {
	cfg    lifecycle.Config
	dir    string
	clock  *clock.Fake
	events *event.Recorder
}

// setup returns a run's config on the scripted model playing yaml, in a
// fresh workspace holding notes.md, on a fake clock.
func setup(t *testing.T, yaml string) *fixture {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	fc := clock.NewFake(dusk)
	ev := &event.Recorder{}
	return &fixture{
		cfg:    lifecycle.Config{Spec: &runspec.Spec{}, Dir: dir, Model: scripted.New(sc, scripted.Config{Clock: fc}), Clock: fc, Events: ev},
		dir:    dir,
		clock:  fc,
		events: ev,
	}
}

func (f *fixture) run(t *testing.T) *lifecycle.Result {
	t.Helper()
	res, err := lifecycle.Run(context.Background(), f.cfg, "work on notes.md")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (f *fixture) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return "(missing)"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const writeThenDone = `
turns:
  - tool_calls: [{name: write_file, input: {path: notes.md, content: "new\n"}}]
  - text: Rewrote notes.md.
`

func TestRunCommitsOrRollsBack(t *testing.T) {
	t.Run("a run that ends done keeps its changes and records its outcome", func(t *testing.T) {
		f := setup(t, writeThenDone)
		res := f.run(t)
		if res.Outcome != agent.Done || !res.Kept || res.Rollback != nil {
			t.Fatalf("outcome %s, kept %v, rollback %v", res.Outcome, res.Kept, res.Rollback)
		}
		if got := f.read(t, "notes.md"); got != "new\n" {
			t.Errorf("notes.md = %q, want the run's change", got)
		}
		if res.RecordErr != nil || res.RecordPath != filepath.Join(res.StateDir, "runs", res.RunID+".json") {
			t.Errorf("record at %q (%v)", res.RecordPath, res.RecordErr)
		}
		if rel, err := filepath.Rel(f.dir, res.StateDir); err == nil && filepath.IsLocal(rel) {
			t.Errorf("the state folder %s is inside the workspace %s", res.StateDir, f.dir)
		}
		if pending, _ := journal.Pending(res.StateDir); len(pending) != 0 {
			t.Errorf("journals left pending: %v", pending)
		}
	})
	t.Run("a run that does not end done is rolled back, its patch in the record", func(t *testing.T) {
		f := setup(t, writeThenDone)
		f.cfg.Verifier = &verify.Verifier{Rules: []verify.Rule{verify.MinChars("notes.md", 100)}}
		f.cfg.Spec.MaxVerifyRounds = -1
		res := f.run(t)
		if res.Outcome != agent.Unverified || res.Kept || res.Rollback == nil {
			t.Fatalf("outcome %s, kept %v, rollback %v", res.Outcome, res.Kept, res.Rollback)
		}
		if got := f.read(t, "notes.md"); got != "old\n" {
			t.Errorf("notes.md = %q, want it as it was", got)
		}
		if !strings.Contains(res.Record.Patch, "+new") || !cmp.Equal(res.Record.RolledBack, []string{"notes.md"}) {
			t.Errorf("record patch %q, rolled back %v", res.Record.Patch, res.Record.RolledBack)
		}
		types := f.events.Types()
		if n := len(types); n < 2 || types[n-2] != "rollback" || types[n-1] != "outcome" {
			t.Errorf("events end %v, want the rollback just before the outcome", types)
		}
	})
	t.Run("Keep leaves the changes of a failed run and says so", func(t *testing.T) {
		f := setup(t, writeThenDone)
		f.cfg.Spec.MaxSteps = 1
		f.cfg.Spec.Keep = true
		res := f.run(t)
		if res.Outcome != agent.StepLimit || !res.Kept {
			t.Fatalf("outcome %s, kept %v", res.Outcome, res.Kept)
		}
		if got := f.read(t, "notes.md"); got != "new\n" {
			t.Errorf("notes.md = %q, want the change kept", got)
		}
	})
	t.Run("what a command wrote is rolled back too: the journal snapshots before danger-class tools", func(t *testing.T) {
		f := setup(t, `
turns:
  - tool_calls: [{name: run_command, input: {command: "echo made > made.txt && rm notes.md"}}]
  - empty: true
`)
		f.cfg.Spec.Approve = runspec.List{"run_command=allow"}
		f.cfg.Spec.MaxVerifyRounds = -1
		res := f.run(t)
		if res.Outcome != agent.Unverified {
			t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
		}
		if got, made := f.read(t, "notes.md"), f.read(t, "made.txt"); got != "old\n" || made != "(missing)" {
			t.Errorf("after rollback notes.md = %q, made.txt = %q; want the workspace as it was", got, made)
		}
	})
}

func TestRunPutsEveryToolCallBeforeTheGate(t *testing.T) {
	f := setup(t, `
turns:
  - tool_calls: [{name: run_command, input: {command: "echo x > x.txt"}}]
  - text: Could not run it.
`)
	var seen []string
	f.cfg.Audit = auditFunc(func(e gate.Entry) error { seen = append(seen, e.Tool+" "+e.Decision); return nil })
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	if f.read(t, "x.txt") != "(missing)" {
		t.Error("the default gate let a command run with nobody to ask")
	}
	if !cmp.Equal(seen, []string{"run_command deny"}) {
		t.Errorf("the caller's auditor saw %v", seen)
	}
	log, err := os.ReadFile(filepath.Join(res.StateDir, "audit.jsonl"))
	if err != nil || !strings.Contains(string(log), `"tool":"run_command"`) {
		t.Errorf("audit log %q (%v), want the decision", log, err)
	}
}

type auditFunc func(gate.Entry) error

func (f auditFunc) Record(e gate.Entry) error { return f(e) }

// TestEveryModelCallIsRetriedByDefault: a zero Retry is the defaults, for
// the worker's calls and the judge's alike.
func TestEveryModelCallIsRetriedByDefault(t *testing.T) {
	f := setup(t, `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns:
      - attempts:
          - {status: 529}
          - {text: PASS}
  - name: worker
    turns:
      - attempts:
          - {status: 429}
          - {status: 503}
          - {text: done}
`)
	f.cfg.Verifier = &verify.Verifier{Judge: &verify.Judge{Model: f.cfg.Model}}
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	var retries []string
	for _, e := range f.events.Events() {
		if e.Type == "retry" {
			retries = append(retries, e.Detail)
		}
	}
	want := []string{"status=429 attempt=1 wait=", "status=503 attempt=2 wait=", "status=529 attempt=1 wait="}
	if len(retries) != len(want) {
		t.Fatalf("retry events %v, want %d", retries, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(retries[i], want[i]) {
			t.Errorf("retry %d = %q, want %q…", i, retries[i], want[i])
		}
	}
	if waited := f.clock.Now().Sub(dusk); waited < 2*time.Second {
		t.Errorf("the retries waited %s on the run's clock, want the default backoff", waited)
	}
}

func TestStateDirHoldsTheRunsState(t *testing.T) {
	f := setup(t, writeThenDone)
	f.cfg.StateDir = filepath.Join(t.TempDir(), "state")
	f.cfg.Exit = func(o agent.Outcome) int { return map[agent.Outcome]int{agent.Done: 0}[o] }
	res := f.run(t)
	if res.StateDir != f.cfg.StateDir || filepath.Dir(filepath.Dir(res.RecordPath)) != f.cfg.StateDir {
		t.Errorf("state in %s, record at %s; want both under %s", res.StateDir, res.RecordPath, f.cfg.StateDir)
	}
	if _, err := os.Stat(filepath.Join(f.cfg.StateDir, "audit.jsonl")); err != nil {
		t.Errorf("audit log: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".nightshift")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the workspace got a .nightshift folder (%v) though the state lives elsewhere", err)
	}
	var rec map[string]any
	data, _ := os.ReadFile(res.RecordPath)
	if err := json.Unmarshal(data, &rec); err != nil || rec["exit"] != 0.0 {
		t.Errorf("record exit = %v (%v), want the caller's table's 0", rec["exit"], err)
	}
}

func TestRecordLeavesExitOutWithoutATable(t *testing.T) {
	f := setup(t, writeThenDone)
	res := f.run(t)
	data, err := os.ReadFile(res.RecordPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"exit"`) {
		t.Errorf("a library run's record has an exit field:\n%s", data)
	}
}

// deadRun leaves the journal of a run that stopped midway in f's
// workspace, having changed notes.md: a suspended journal is pending as a
// dead run's is.
func deadRun(t *testing.T, f *fixture) {
	t.Helper()
	ws, err := workspace.Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	base, err := statedir.Base("")
	if err != nil {
		t.Fatal(err)
	}
	state, err := statedir.Workspace(base, f.dir)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := journal.Attach(ws, state, "dead-run")
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.WriteFile("notes.md", []byte("half\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tx.Suspend(); err != nil {
		t.Fatal(err)
	}
}

func TestRunRefusesAWorkspaceAnEarlierRunDiedIn(t *testing.T) {
	t.Run("by default nothing runs and the error says recover first", func(t *testing.T) {
		f := setup(t, writeThenDone)
		deadRun(t, f)
		res, err := lifecycle.Run(context.Background(), f.cfg, "x")
		if !errors.Is(err, journal.ErrNeedsRecovery) || res != nil {
			t.Fatalf("Run = %v, %v; want ErrNeedsRecovery and no result", res, err)
		}
		if len(f.events.Events()) != 0 || f.read(t, "notes.md") != "half\n" {
			t.Error("something ran in a workspace that needs recovery")
		}
	})
	t.Run("RecoverPending rolls the dead run back first", func(t *testing.T) {
		f := setup(t, writeThenDone)
		deadRun(t, f)
		f.cfg.RecoverPending = true
		f.cfg.Spec.MaxSteps = 1
		res := f.run(t)
		if res.Outcome != agent.StepLimit {
			t.Fatalf("outcome %s", res.Outcome)
		}
		if got := f.read(t, "notes.md"); got != "old\n" {
			t.Errorf("notes.md = %q, want the state before the dead run", got)
		}
	})
}

func TestRunNeedsADirAndAModel(t *testing.T) {
	for name, cfg := range map[string]lifecycle.Config{
		"no dir":   {Model: scripted.New(&scripted.Scenario{}, scripted.Config{})},
		"no model": {Dir: t.TempDir()},
	} {
		if _, err := lifecycle.Run(context.Background(), cfg, "x"); err == nil {
			t.Errorf("%s: Run started", name)
		}
	}
}

// Regression: read_result joins a run only once a tool result has been
// cut, so a rule naming it was refused as naming no tool before the run
// had started.
func TestAnApproveRuleMayNameReadResultFromTheStart(t *testing.T) {
	f := setup(t, writeThenDone)
	f.cfg.Spec.Approve = runspec.List{"read_result=deny"}
	if res := f.run(t); res.Outcome != agent.Done {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	f.cfg.Spec.Approve = runspec.List{"read_reslt=deny"}
	if _, err := lifecycle.Run(context.Background(), f.cfg, "work on notes.md"); err == nil {
		t.Fatal("a misspelt tool in a rule was accepted")
	}
}

// ptr is a pointer to v, for a spec's optional fields.
func ptr[T any](v T) *T { return &v }
