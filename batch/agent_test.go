package batch_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// commandThenShortNotes tries a command that would overwrite README.md,
// writes a short notes.md and claims it is done.
const commandThenShortNotes = `
turns:
  - tool_calls: [{name: run_command, input: {command: "echo overwritten > README.md && echo made > made.txt"}}]
  - tool_calls: [{name: write_file, input: {path: notes.md, content: "short"}}]
  - text: Wrote notes.md.
`

// TestBatchTaskGoesThroughTheGateAndTheJournal is issue 9's bug: a
// batch.AgentRunner task had no gate and no journal, so a failed task's
// changes stayed and a command ran (or was missing) however the task's
// approve rules said. Each task now runs as `nightshift run` does: the
// gate decides first, a task that does not end done is rolled back in its
// copy, which stays behind (its run record in the state directory) for inspection, and the
// source folder is never touched.
func TestBatchTaskGoesThroughTheGateAndTheJournal(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "repo")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "README.md"), []byte("# repo\n"), 0o644)
	sc, err := scripted.Parse([]byte(commandThenShortNotes))
	if err != nil {
		t.Fatal(err)
	}
	c := clock.NewFake(epoch)
	// The first FAIL ends a task: its check can never pass.
	run := batch.AgentRunner(lifecycle.Config{Model: scripted.New(sc, scripted.Config{Clock: c}), Clock: c, Spec: &runspec.Spec{Verify: runspec.Verify{MaxVerifyRounds: -1}}})
	specs := []*taskfile.Spec{
		// The default gate asks before a command, and nobody is there to
		// ask in a batch: refused.
		{Name: "gated", Task: "Write notes.md", Dir: "repo", BaseDir: base, Spec: runspec.Spec{Verify: runspec.Verify{Checks: []string{"min-chars:notes.md:100"}}}},
		// Allowed by the task's rule: the command runs, and the rollback
		// undoes it too (the journal snapshots before a danger-class tool).
		{Name: "allowed", Task: "Write notes.md", Dir: "repo", BaseDir: base, Spec: runspec.Spec{Verify: runspec.Verify{Checks: []string{"min-chars:notes.md:100"}}, Gate: runspec.Gate{Approve: []string{"run_command=allow"}}}},
	}
	sum, err := batch.Run(context.Background(), batch.Config{Run: run, WorkDir: filepath.Join(base, "work"), Parallel: 1, Clock: c}, specs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range sum.Tasks {
		t.Run(tr.Name, func(t *testing.T) {
			if tr.Result.Outcome != agent.Unverified {
				t.Fatalf("outcome %s (%s), want unverified", tr.Result.Outcome, tr.Result.Reason)
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(tr.Dir, name))
				if err != nil {
					return "(missing)"
				}
				return string(b)
			}
			if got := read("README.md"); got != "# repo\n" {
				t.Errorf("the copy's README.md = %q, want it as it was", got)
			}
			if got, made := read("notes.md"), read("made.txt"); got != "(missing)" || made != "(missing)" {
				t.Errorf("the copy holds notes.md %q and made.txt %q: the failed task was not rolled back", got, made)
			}
			// The copy's state lives in the state directory, outside it.
			stateBase, err := statedir.Base("")
			if err != nil {
				t.Fatal(err)
			}
			state, err := statedir.WorkspaceDir(stateBase, tr.Dir)
			if err != nil {
				t.Fatal(err)
			}
			recs, _ := filepath.Glob(filepath.Join(state, "runs", "*.json"))
			if len(recs) != 1 {
				t.Fatalf("run records of the copy: %v, want the task's one", recs)
			}
			var rec agent.Record
			data, _ := os.ReadFile(recs[0])
			if err := json.Unmarshal(data, &rec); err != nil || !strings.Contains(rec.Patch, "+short") {
				t.Errorf("the record's patch %q (%v) does not keep what the task attempted", rec.Patch, err)
			}
			audit, err := os.Open(filepath.Join(state, "audit.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer audit.Close()
			entries, err := gate.ReadAudit(audit)
			if err != nil || len(entries) == 0 || entries[0].Tool != "run_command" {
				t.Fatalf("audit %+v (%v), want the gate's decision on run_command", entries, err)
			}
			want := map[string]string{"gated": "deny", "allowed": "allow"}[tr.Name]
			if entries[0].Decision != want {
				t.Errorf("the gate decided %s on run_command, want %s", entries[0].Decision, want)
			}
			if ran := strings.Contains(rec.Patch, "made.txt"); ran != (want == "allow") {
				t.Errorf("the patch names made.txt: %v; the command was %sed", ran, want)
			}
		})
	}
	t.Run("the source folder is never touched", func(t *testing.T) {
		ents, _ := os.ReadDir(src)
		if len(ents) != 1 {
			t.Errorf("the source holds %d entries, want README.md alone", len(ents))
		}
		if b, _ := os.ReadFile(filepath.Join(src, "README.md")); string(b) != "# repo\n" {
			t.Errorf("the source README.md = %q", b)
		}
	})
}

func TestTaskConfig(t *testing.T) {
	base := t.TempDir()
	os.WriteFile(filepath.Join(base, "answer.schema.json"), []byte(`{"type": "object"}`), 0o644)
	from := lifecycle.Config{Spec: &runspec.Spec{Gate: runspec.Gate{Approve: runspec.List{"danger=deny"}}, Limits: runspec.Limits{MaxSteps: 7}},
		StateDir: "/shared/state", RunID: "one-run"}
	zero, three := 0, 3
	t.Run("a task's retries: 0 means none, and an unset count keeps the base's", func(t *testing.T) {
		for _, tt := range []struct {
			retries *int
			want    int
		}{{&zero, retry.NoRetries}, {&three, 3}, {nil, 0}} {
			cfg, err := batch.TaskConfig(from, &taskfile.Spec{Task: "t", Spec: runspec.Spec{Limits: runspec.Limits{Retries: tt.retries}}}, "dir")
			if err != nil || cfg.Retry.Retries != tt.want {
				t.Errorf("retries %v: Retry.Retries = %d (%v), want %d", tt.retries, cfg.Retry.Retries, err, tt.want)
			}
		}
	})
	t.Run("each task is its own run in its own workspace", func(t *testing.T) {
		cfg, _ := batch.TaskConfig(from, &taskfile.Spec{Task: "t"}, "work/001-t")
		if cfg.Dir != "work/001-t" || cfg.StateDir != "" || cfg.RunID != "" || cfg.Spec.MaxSteps != 7 {
			t.Errorf("dir %q, state %q, run %q, max steps %d", cfg.Dir, cfg.StateDir, cfg.RunID, cfg.Spec.MaxSteps)
		}
	})
	t.Run("the task's gate rules go on top of the base's", func(t *testing.T) {
		cfg, err := batch.TaskConfig(from, &taskfile.Spec{Task: "t", Spec: runspec.Spec{Gate: runspec.Gate{Approve: []string{"run_command=allow"}}}}, "d")
		if err != nil {
			t.Fatal(err)
		}
		policy, err := gate.ParsePolicy(cfg.Spec.Approve...)
		if err != nil || policy.Decide("run_command", "danger") != gate.Allow || policy.Decide("other", "danger") != gate.Deny {
			t.Errorf("policy %s (%v)", policy, err)
		}
	})
	t.Run("the output schema is read relative to the task file", func(t *testing.T) {
		cfg, err := batch.TaskConfig(from, &taskfile.Spec{Task: "t", BaseDir: base, Spec: runspec.Spec{Verify: runspec.Verify{OutputSchema: "answer.schema.json"}}}, "d")
		if err != nil || cfg.OutputSchema == nil {
			t.Errorf("schema %v, %v", cfg.OutputSchema, err)
		}
	})
	t.Run("what would stop a task at its start is an error", func(t *testing.T) {
		for name, spec := range map[string]*taskfile.Spec{
			"a bad check":      {Task: "t", Spec: runspec.Spec{Verify: runspec.Verify{Checks: []string{"min-chars:a.md:many"}}}},
			"a bad gate rule":  {Task: "t", Spec: runspec.Spec{Gate: runspec.Gate{Approve: []string{"danger=maybe"}}}},
			"a missing schema": {Task: "t", BaseDir: base, Spec: runspec.Spec{Verify: runspec.Verify{OutputSchema: "none.json"}}},
		} {
			if _, err := batch.TaskConfig(from, spec, "d"); err == nil {
				t.Errorf("%s: no error", name)
			}
		}
	})
}
