package night_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// halfDone is seed 000's confident half-finished job at night: the
// builder writes 3 of the 5 install steps and says it is done. Its judge
// script (asked by the judge's system prompt) fails it unless the file
// holds the fifth step. (Its answer counts no steps: "all five" would be
// a false claim the claims check fails before the judge or a rule is
// heard.)
const halfDone = `
loop: true
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns:
      - cases:
          - when: {contains: "5. tinytool --version"}
            text: "PASS\nAll five steps are there."
          - text: "FAIL: docs/install.md has only 3 of the 5 install steps"
  - name: builder
    turns:
      - tool_calls: [{name: write_file, input: {path: docs/install.md, content: "1. download\n2. unpack\n3. make\n"}}]
      - text: "Done: docs/install.md has the install steps."
`

// verifiedBuilder is a pipeline whose builder role says how its results
// are verified; its keys are added to the builder's line.
func verifiedBuilder(keys string) string {
	return `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], ceiling: 1` + keys + `}
`
}

// TestANightBuilderClaimingAHalfDoneJobEndsUnverified is the first
// acceptance test of issue 24: by default the builder's result is judged
// (by the role's own model, isolated), and the attempt that wrote 3 of 5
// items and claimed done ends unverified, not done: a failed step of its
// task, rolled back, with the judge's FAIL reason in the ledger and in
// the morning report, under what needs a person.
func TestANightBuilderClaimingAHalfDoneJobEndsUnverified(t *testing.T) {
	ctx := context.Background()
	f := setup(t, verifiedBuilder(", max_verify_rounds: 1"))
	task := f.add("Write docs/install.md with all 5 install steps", 9)
	sum, _ := f.runNight(f.scriptedModels(map[string]string{"b1": halfDone}))

	steps, err := f.l.Steps(ctx, sum.Night.ID)
	if err != nil {
		t.Fatal(err)
	}
	var build *ledger.Step
	for i := range steps {
		if steps[i].Role == ledger.Builder {
			build = &steps[i]
		}
	}
	if build == nil || build.Outcome != "unverified" {
		t.Fatalf("builder step %+v: want outcome unverified", build)
	}
	if !strings.Contains(build.Reason, "only 3 of the 5") {
		t.Errorf("step reason %q: want the judge's FAIL reason", build.Reason)
	}
	fs, _ := f.l.Failures(ctx, sum.Night.ID)
	if len(fs) != 1 || fs[0].Task != task.ID || fs[0].Scope != ledger.TaskScope || fs[0].Rule != string(night.FailedStep) ||
		!strings.Contains(fs[0].Reason, "only 3 of the 5") {
		t.Fatalf("failures %+v: want one task-scope failed step with the judge's reason", fs)
	}
	got, _ := f.l.Task(ctx, task.ID)
	if got.State == ledger.Done {
		t.Errorf("task is done; an unverified attempt is not done")
	}
	if _, err := os.Stat(filepath.Join(f.p.Path(f.p.WorkDir), "task-1", "docs", "install.md")); !os.IsNotExist(err) {
		t.Errorf("install.md is left in the task's workspace (%v): an unverified attempt is rolled back", err)
	}
	rep, err := report.Build(ctx, f.l, f.clk.Now(), report.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Needs.Unverified) != 1 || rep.Needs.Unverified[0].Task != task.ID || !strings.Contains(rep.Needs.Unverified[0].Reason, "only 3 of the 5") {
		t.Errorf("report's unverified %+v: want the task, with the judge's reason", rep.Needs.Unverified)
	}
}

// TestABuilderRolesChecksCatchAHalfDoneJobWithoutAJudge is the second:
// the pipeline's checks on the builder role catch the same job with no
// judge at all.
func TestABuilderRolesChecksCatchAHalfDoneJobWithoutAJudge(t *testing.T) {
	ctx := context.Background()
	f := setup(t, verifiedBuilder(`, no_judge: true, max_verify_rounds: 1, checks: ["matches:docs/install.md:(?m)^5\\."]`))
	task := f.add("Write docs/install.md with all 5 install steps", 9)
	sum, ev := f.runNight(f.scriptedModels(map[string]string{"b1": halfDone}))
	fs, _ := f.l.Failures(ctx, sum.Night.ID)
	if len(fs) != 1 || fs[0].Task != task.ID || fs[0].Scope != ledger.TaskScope || !strings.Contains(fs[0].Reason, "unverified") {
		t.Fatalf("failures %+v: want one task-scope failure of an unverified attempt", fs)
	}
	steps, _ := f.l.Steps(ctx, sum.Night.ID)
	for _, s := range steps {
		if s.Role == ledger.Builder && (s.Outcome != "unverified" || strings.Join(s.Checks, ",") != "matches") {
			t.Errorf("builder step %s %v: want unverified by the matches check", s.Outcome, s.Checks)
		}
	}
	for _, e := range ev.Events() {
		if e.Type == "verify" && strings.Contains(e.Detail, "judge") {
			t.Errorf("verify event %q: no_judge asks no judge", e.Detail)
		}
	}
}

// TestABuilderWhoseJobIsWholePassesItsJudge: the same pipeline passes a
// builder that wrote all five steps (the judge is not a wall).
func TestABuilderWhoseJobIsWholePassesItsJudge(t *testing.T) {
	ctx := context.Background()
	f := setup(t, verifiedBuilder(""))
	task := f.add("Write docs/install.md with all 5 install steps", 9)
	whole := strings.Replace(halfDone, `3. make\n"`, `3. make\n4. make install\n5. tinytool --version\n"`, 1)
	f.runNight(f.scriptedModels(map[string]string{"b1": whole}))
	if got, _ := f.l.Task(ctx, task.ID); got.State != ledger.Done {
		t.Errorf("task is %s, want done", got.State)
	}
}

// TestTheBuildersVerifyKeysAreCheckedWithTheirLines: a judge not under
// models, the verify keys on a role that is not the builder, and a task
// file's own keys in a role are bad pipelines that name the key and its
// line.
func TestTheBuildersVerifyKeysAreCheckedWithTheirLines(t *testing.T) {
	head := "window: {start: \"22:00\", end: \"06:00\"}\nmodels:\n  b1: {provider: scripted, scenario: s.yaml}\nroles:\n"
	for _, c := range []struct{ name, roles, want string }{
		{"a judge not under models", "  builder:\n    models: [b1]\n    judge: nope\n", `roles.builder.judge: model "nope" is not under models`},
		{"checks on the proposer", "  builder: {models: [b1]}\n  proposer:\n    models: [b1]\n    checks: [exists:a]\n", "line 8: roles.proposer: checks is for the builder"},
		{"a task file's judge_model", "  builder:\n    models: [b1]\n    judge_model: b1\n", "line 7: roles.builder.judge_model is a task file's key: a pipeline names the model under models, as roles.builder.judge"},
		{"a task file's models_file", "  builder:\n    models: [b1]\n    models_file: m.yaml\n", "line 7: roles.builder.models_file: models_file is the pipeline's own key"},
		{"a negative max_calls_per_reply", "  builder:\n    models: [b1]\n    max_calls_per_reply: -1\n", "roles.builder.max_calls_per_reply must not be negative, got -1 (line 7)"},
		{"a bad check", "  builder:\n    models: [b1]\n    checks: min-chars:a\n", `check "min-chars:a"`},
		{"judge and no_judge", "  builder: {models: [b1], judge: b1, no_judge: true}\n", "judge and no_judge cannot both be given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := night.ParsePipeline([]byte(head + c.roles))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestAPipelinesOutputSchemaIsReadOnceWhenItIsLoaded: the schema's
// content is kept from the load, so a builder that rewrites the file to
// {} changes nothing: its answer is still checked by the schema it
// started with.
func TestAPipelinesOutputSchemaIsReadOnceWhenItIsLoaded(t *testing.T) {
	ctx := context.Background()
	f := setup(t, verifiedBuilder(""))
	schema := filepath.Join(f.dir, "answer.json")
	if err := os.WriteFile(schema, []byte(`{"type": "object", "required": ["steps"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(f.dir, "pipeline.yaml")
	if err := os.WriteFile(path, []byte(verifiedBuilder(", no_judge: true, max_verify_rounds: 1, output_schema: answer.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := night.LoadPipeline(path)
	if err != nil {
		t.Fatal(err)
	}
	p.WorkDir = f.p.WorkDir
	f.p = p
	// What the builder might do with a command: the file now allows any
	// answer.
	if err := os.WriteFile(schema, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	task := f.add("Answer as JSON", 9)
	f.runNight(f.scriptedModels(map[string]string{"b1": "loop: true\nturns: [{text: '{\"nothing\": 1}'}]\n"}))
	if got, _ := f.l.Task(ctx, task.ID); got.State == ledger.Done {
		t.Errorf("task is done: its answer was checked by the rewritten schema, not the one the night loaded")
	}
	os.Remove(schema)
	if _, err := night.LoadPipeline(path); err == nil || !strings.Contains(err.Error(), "output_schema") {
		t.Errorf("err = %v: a pipeline whose schema is gone is refused at load, not at its first attempt", err)
	}
}

// TestAPipelineFilesYAMLErrorsSpeakInItsTerms is issue 23's item 7 for
// pipeline files: `field wpi not found in type night.Pipeline` and
// `cannot unmarshal !!str … into []string` become the key, its line and
// the shape wanted.
func TestAPipelineFilesYAMLErrorsSpeakInItsTerms(t *testing.T) {
	head := "window: {start: \"22:00\", end: \"06:00\"}\nmodels:\n  b1: {provider: scripted, scenario: s.yaml}\n"
	for _, c := range []struct{ name, doc, want string }{
		{"a misspelt top-level key", head + "wpi: 3\nroles: {builder: {models: [b1]}}\n", "line 4: unknown key wpi; did you mean wip?"},
		{"a misspelt role key", head + "roles:\n  builder: {models: [b1], cieling: 3}\n", "line 5: unknown key cieling in roles.builder; did you mean ceiling?"},
		{"a string where a list of models is wanted", head + "roles:\n  builder: {models: b1}\n", `line 5: roles.builder.models is "b1": want a list`},
		{"a word for a whole number", head + "wip: many\nroles: {builder: {models: [b1]}}\n", `line 4: wip is "many": want a whole number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := night.ParsePipeline([]byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			for _, goName := range []string{"night.", "!!", "[]string", " int", "RoleSpec"} {
				if strings.Contains(err.Error(), goName) {
					t.Errorf("err = %v names Go's %q", err, goName)
				}
			}
		})
	}
}

// TestABuilderRolesCallCapHoldsItsAttempts: roles.builder's
// max_calls_per_reply reaches each attempt (issue 25's cap, through the
// run spec).
func TestABuilderRolesCallCapHoldsItsAttempts(t *testing.T) {
	f := setup(t, verifiedBuilder(", no_judge: true, max_calls_per_reply: 2"))
	f.add("Write three files", 9)
	f.runNight(f.scriptedModels(map[string]string{"b1": `
turns:
  - tool_calls:
      - {name: write_file, input: {path: a.txt, content: a}}
      - {name: write_file, input: {path: b.txt, content: b}}
      - {name: write_file, input: {path: c.txt, content: c}}
  - text: "Wrote the files I could."
`}))
	dir := filepath.Join(f.p.Path(f.p.WorkDir), "task-1")
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err != nil {
		t.Errorf("b.txt: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt was written (%v): the third call of the reply is past the role's cap of 2", err)
	}
}

// cutAt answers from m until its nth call, which ends the night's
// context (a person's Ctrl-C, in the middle of an attempt).
type cutAt struct {
	m      llm.Model
	n      int
	calls  int
	cancel context.CancelFunc
}

func (c *cutAt) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	c.calls++
	if c.calls == c.n {
		c.cancel()
		return nil, context.Canceled
	}
	return c.m.Generate(ctx, req)
}

// TestAContinuedAttemptKeepsTheSpecItStartedWith is "resume for every
// run" at night: an interrupted builder attempt records its run spec in
// its checkpoint, and the attempt that continues it the next time keeps
// it, whatever the pipeline says by then (its per-reply call cap here).
func TestAContinuedAttemptKeepsTheSpecItStartedWith(t *testing.T) {
	f := setup(t, verifiedBuilder(", no_judge: true, max_calls_per_reply: 2"))
	f.add("Write the files", 9)
	models := f.scriptedModels(map[string]string{"b1": `
turns:
  - tool_calls: [{name: write_file, input: {path: first.txt, content: x}}]
  - tool_calls:
      - {name: write_file, input: {path: a.txt, content: a}}
      - {name: write_file, input: {path: b.txt, content: b}}
      - {name: write_file, input: {path: c.txt, content: c}}
  - text: "Wrote the files I could."
`})
	ctx, cancel := context.WithCancel(context.Background())
	cut := &cutAt{m: models["b1"], n: 2, cancel: cancel}
	if _, err := night.Run(ctx, night.Config{Pipeline: f.p, Ledger: f.l, Models: map[string]llm.Model{"b1": cut}, Clock: f.clk}); err == nil {
		t.Fatal("the night went on after its context ended")
	}
	// Tonight's pipeline has no cap of its own: the default, 64.
	f.p.Roles[ledger.Builder].MaxCallsPerReply = 0
	if _, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(f.p.Path(f.p.WorkDir), "task-1")
	for name, want := range map[string]bool{"first.txt": true, "b.txt": true, "c.txt": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s written: %v, want %v (the continued attempt keeps its cap of 2)", name, err == nil, want)
		}
	}
}
