package main

// Regression tests for what a newcomer tripped on (issue 17), each named
// after the bug.

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandsOnALedgerThatDoesNotExistSayNoLedgerAndCreateNone(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "nosuch.db")
	for _, args := range [][]string{
		{"report", "--db", db},
		{"report", "--db", db, "--json"},
		{"task", "list", "--db", db},
		{"task", "approve", "3", "--db", db},
		{"task", "deny", "3", "--db", db},
		{"task", "fail", "3", "--reason", "broken", "--db", db},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			res := runCLI(t, args...)
			if res.code != 2 || !strings.Contains(res.stderr, "no ledger at "+db) {
				t.Errorf("exit %d, stderr %q; want 2 and no ledger at PATH", res.code, res.stderr)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("%s was created", db)
			}
		})
	}
	t.Run("task add still creates one", func(t *testing.T) {
		if res := runCLI(t, "task", "add", "--db", db, "A task"); res.code != 0 {
			t.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		if res := runCLI(t, "report", "--db", db); res.code != 0 {
			t.Errorf("report on the new ledger: exit %d: %s", res.code, res.stderr)
		}
	})
}

func TestDirThatDoesNotExistSaysSo(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: hi}]\n", "file.txt": "x"})
	res := runCLI(t, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--dir", filepath.Join(dir, "nowhere"), "Anything")
	if res.code != 2 || !strings.Contains(res.stderr, "does not exist") {
		t.Errorf("exit %d, stderr %q; want 2 and does not exist", res.code, res.stderr)
	}
	res = runCLI(t, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--dir", filepath.Join(dir, "file.txt"), "Anything")
	if res.code != 2 || !strings.Contains(res.stderr, "not a folder") {
		t.Errorf("a file: exit %d, stderr %q; want 2 and not a folder", res.code, res.stderr)
	}
}

func TestNightDemoRejectsPipelineAndLeavesNoTempFolders(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	res := runCLI(t, "night", "--demo", "--pipeline", "mine.yaml")
	if res.code != 2 || !strings.Contains(res.stderr, "--pipeline") {
		t.Errorf("--demo --pipeline: exit %d, stderr %q; want 2", res.code, res.stderr)
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	if res := runCLI(t, "night", "--demo", "--db", db); res.code != 0 && res.code != 8 {
		t.Fatalf("night --demo: exit %d\n%s", res.code, res.stderr)
	}
	left, err := filepath.Glob(filepath.Join(tmp, "nightshift-demo-*"))
	if err != nil {
		t.Fatal(err)
	}
	// What the demo leaves is its page, alone in a private folder of its
	// own (issue 23); nothing else.
	for _, p := range left {
		if entries, _ := os.ReadDir(p); strings.HasPrefix(filepath.Base(p), "nightshift-demo-page-") && len(entries) == 1 && entries[0].Name() == "nightshift-demo.html" {
			continue
		}
		t.Errorf("night --demo left %q in the temp folder", p)
	}
}

func TestEvalKeepsJudgeModelAndModelIsItsDeprecatedAlias(t *testing.T) {
	scenario := "../../verify/eval/testdata/judge.yaml"
	res := runCLI(t, "eval", "--provider", "scripted", "--scenario", scenario, "--model", "scripted")
	if res.code != 0 || !strings.Contains(res.stderr, "--model is deprecated for eval: use --judge-model") || strings.Contains(res.stdout, "deprecated") {
		t.Errorf("--model: exit %d, stderr %q; want it to work and say it is deprecated", res.code, res.stderr)
	}
	res = runCLI(t, "eval", "--provider", "scripted", "--scenario", scenario, "--model", "a", "--judge-model", "b")
	if res.code != 2 || !strings.Contains(res.stderr, "give the judge once") {
		t.Errorf("both, differing: exit %d, stderr %q; want 2", res.code, res.stderr)
	}
	if help := runCLI(t, "eval", "--help").stdout; strings.Contains(help, "--model ") || !strings.Contains(help, "--judge-model") {
		t.Errorf("eval --help shows --model or lacks --judge-model:\n%s", help)
	}
}

func TestOneStepIsNotOneSteps(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: Done.}]\n", "work/a.txt": "a"})
	res := runCLI(t, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--dir", filepath.Join(dir, "work"), "--no-judge", "Say done")
	if !strings.Contains(res.stderr, "done after 1 step (exit 0)") {
		t.Errorf("stderr %q; want 'after 1 step'", res.stderr)
	}
}

func TestMaxTokensFieldIsForTheOpenAIWire(t *testing.T) {
	res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=k"}, "run", "--max-tokens-field", "max_tokens", "--dir", t.TempDir(), "Anything")
	if res.code != 2 || !strings.Contains(res.stderr, "--max-tokens-field is for the OpenAI wire") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
	res = runCLIEnv(t, []string{"OPENAI_API_KEY=k"}, "run", "--max-tokens-field", "max_output_tokens", "--dir", t.TempDir(), "Anything")
	if res.code != 2 || !strings.Contains(res.stderr, "max_output_tokens") {
		t.Errorf("a bad field: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestTaskApproveDenyAndFailSayWhetherTheTaskIsMissingOrNotParked(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	if res := runCLI(t, "task", "add", "--db", db, "A task"); res.code != 0 {
		t.Fatalf("task add: exit %d: %s", res.code, res.stderr)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"approving a task that does not exist", []string{"task", "approve", "99"}, "no task 99: nightshift task list shows the tasks and their IDs"},
		{"failing a task that does not exist", []string{"task", "fail", "99", "--reason", "broken"}, "no task 99: "},
		{"approving a queued task", []string{"task", "approve", "1"}, "task 1 is queued, not parked: it has no action waiting for a person to approve"},
		{"denying a queued task", []string{"task", "deny", "1"}, "task 1 is queued, not parked: it has no action waiting for a person to deny"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, append(tt.args, "--db", db)...)
			if res.code != 2 || !strings.Contains(res.stderr, tt.want) || strings.Contains(res.stderr, "ledger:") {
				t.Errorf("exit %d, stderr %q; want 2 and %q, without ledger:", res.code, res.stderr, tt.want)
			}
		})
	}
}

func TestTaskAddRefusesAScoreThatIsNoNumber(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	for _, score := range []string{"NaN", "Inf", "-Inf"} {
		t.Run(score, func(t *testing.T) {
			res := runCLI(t, "task", "add", "--db", db, "--score", score, "A task")
			if res.code != 2 || !strings.Contains(res.stderr, "give a finite number, for example --score 7") {
				t.Errorf("exit %d, stderr %q; want 2 and a finite number", res.code, res.stderr)
			}
		})
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("%s was created", db)
	}
}

func TestANegativeTaskIDIsNoTaskIDNotAnUnknownShorthandFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	for _, args := range [][]string{{"task", "approve", "-1"}, {"task", "deny", "-42"}, {"task", "fail", "-3", "--reason", "r"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			res := runCLI(t, append(args, "--db", db)...)
			if res.code != 2 || !strings.Contains(res.stderr, args[2]+" is not a task ID: IDs are the positive numbers nightshift task list shows") || strings.Contains(res.stderr, "shorthand") {
				t.Errorf("exit %d, stderr %q; want 2 and not a task ID", res.code, res.stderr)
			}
		})
	}
}

func TestApprovingATaskTwiceSaysItWasApprovedAlready(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	if res := runCLI(t, "task", "add", "--db", db, "A task"); res.code != 0 {
		t.Fatalf("task add: exit %d: %s", res.code, res.stderr)
	}
	// Park it as a night's builder would: an action waiting for a person.
	sqldb, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqldb.Exec(`INSERT INTO ns_parked(task_id, action, asked_at, deadline) VALUES (1, 'run_command {"cmd":"make"}', 0, 9999999999999);
		UPDATE ns_tasks SET state = 'parked' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	sqldb.Close()
	if res := runCLI(t, "task", "approve", "1", "--db", db); res.code != 0 {
		t.Fatalf("the first approval: exit %d: %s", res.code, res.stderr)
	}
	for _, verb := range []string{"approve", "deny"} {
		res := runCLI(t, "task", verb, "1", "--db", db)
		want := `task 1's action was approved already (run_command {"cmd":"make"}; the task is queued): there is nothing left to ` + verb
		if res.code != 2 || !strings.Contains(res.stderr, want) {
			t.Errorf("%s again: exit %d, stderr %q; want 2 and %q", verb, res.code, res.stderr, want)
		}
	}
}
