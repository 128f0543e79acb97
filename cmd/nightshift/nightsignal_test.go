package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/ledger"
)

// longAttempt is the builder's scenario on the first night: it looks for
// earlier work, starts the booklet (progress.md), and then its model
// takes 60 seconds to answer, by the wall clock a real night runs on.
const longAttempt = `
turns:
  - tool_calls: [{name: read_file, input: {path: progress.md}}]
  - tool_calls: [{name: write_file, input: {path: progress.md, content: "started overnight\n"}}]
  - {delay: 60s, text: "Finished the booklet."}
`

// nextAttempt is the builder's scenario on the next night. Started over,
// the attempt looks for earlier work and says whether it found it; resumed
// from its checkpoint, its conversation holds the two turns before the
// interrupt, and the next call is its third.
const nextAttempt = `
turns:
  - tool_calls: [{name: read_file, input: {path: progress.md}}]
  - cases:
      - when: {contains: "started overnight"}
        text: "Found the first half, but started over."
      - text: "Started over: nothing was there."
  - text: "Continued: the first half was there."
`

// signalPipeline is a night around now, with one builder step.
func signalPipeline(rollback bool) string { return signalPipelineAt(time.Now().UTC(), rollback) }

// signalPipelineAt is signalPipeline for a window around now: its night
// is named by now.Add(-time.Hour)'s date, which a test that looks the
// night up takes from the same now (a clock read later may have passed
// midnight, an hour into the night).
func signalPipelineAt(now time.Time, rollback bool) string {
	return fmt.Sprintf(`window: {start: "%s", end: "%s"}
models: {maker: {provider: scripted, scenario: maker.yaml}}
roles:
  builder: {models: [maker], ceiling: 1, rollback_on_interrupt: %v, no_judge: true}
`, now.Add(-time.Hour).Format("15:04"), now.Add(time.Hour).Format("15:04"), rollback)
}

// startNightChild starts `nightshift night` in dir as a real process, with
// the owner name the in-process commands use too.
func startNightChild(t *testing.T, dir string, args ...string) *child {
	t.Helper()
	return startChildEnv(t, dir, []string{"NIGHTSHIFT_OWNER=box1"}, append([]string{"night"}, args...)...)
}

// TestCtrlCStopsANightAtOnce is issue 12's acceptance: Ctrl-C (or SIGTERM)
// during a 60-second builder attempt used to be ignored until the attempt
// ended, with the task recorded done. The night now exits 130 within two
// seconds, the attempt recorded interrupted with its journal pending, and
// the next night in the window continues it on its workspace as it was
// left; with rollback_on_interrupt it is rolled back instead and retried
// from its start.
func TestCtrlCStopsANightAtOnce(t *testing.T) {
	for _, tc := range []struct {
		sig      syscall.Signal
		rollback bool
	}{{syscall.SIGINT, false}, {syscall.SIGTERM, false}, {syscall.SIGINT, true}} {
		name := tc.sig.String() + " exits 130 at once and the next night continues the attempt"
		if tc.rollback {
			name = tc.sig.String() + " with rollback_on_interrupt rolls the attempt back and the next night retries it"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"pipeline.yaml": signalPipeline(tc.rollback), "maker.yaml": longAttempt})
			db := filepath.Join(dir, "night.db")
			if res := runCLIEnv(t, []string{"NIGHTSHIFT_OWNER=box1"}, "task", "add", "a booklet", "--score", "9", "--db", db); res.code != 0 {
				t.Fatalf("task add: %d %s", res.code, res.stderr)
			}
			c := startNightChild(t, dir, "--pipeline", "pipeline.yaml", "--db", db)
			// The attempt has written progress.md and its checkpoint holds
			// that step: the 60-second call is next.
			c.waitFor(t, "[checkpoint · step=2 ")
			sent := time.Now()
			if err := c.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			code, stderr := c.wait(t)
			took := time.Since(sent)
			if code != 130 || took > 2*time.Second {
				t.Fatalf("exit %d after %s, want 130 within 2s\n%s", code, took, stderr)
			}
			if !strings.Contains(stderr, "1 step recorded interrupted") {
				t.Errorf("stderr does not say what was left for the next night:\n%s", stderr)
			}

			l, err := ledger.Open(context.Background(), db, ledger.Config{Owner: "box1"})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(context.Background()) //nolint:errcheck // test cleanup
			n, err := l.OpenNight(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			steps, _ := l.Steps(context.Background(), n.ID)
			if len(steps) != 1 || steps[0].State != ledger.Interrupted || steps[0].Pending == tc.rollback {
				t.Fatalf("steps after the signal %+v: want one interrupted, pending unless rolled back", steps)
			}
			task := filepath.Join(dir, "work", "task-1")
			pending, _ := journal.Pending(stateOf(t, task))
			_, statErr := os.Stat(filepath.Join(task, "progress.md"))
			if tc.rollback {
				if len(pending) != 0 || statErr == nil {
					t.Errorf("rolled back: journals pending %v, progress.md there: %v", pending, statErr == nil)
				}
			} else if len(pending) != 1 || statErr != nil {
				t.Errorf("interrupted: journals pending %v (want the attempt's), progress.md: %v", pending, statErr)
			}
			if res := runCLIEnv(t, nil, "task", "list", "--db", db); !strings.Contains(res.stdout, map[bool]string{false: "claimed", true: "queued"}[tc.rollback]) {
				t.Errorf("task list after the signal:\n%s", res.stdout)
			}

			// The next night in the window.
			writeFiles(t, dir, map[string]string{"maker.yaml": nextAttempt})
			res := runCLIEnv(t, []string{"NIGHTSHIFT_OWNER=box1"}, "night", "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--db", db)
			if res.code != 0 {
				t.Fatalf("the next night: exit %d\n%s", res.code, res.stderr)
			}
			steps, _ = l.Steps(context.Background(), n.ID)
			if len(steps) != 2 || steps[1].State != ledger.Finished {
				t.Fatalf("steps after the next night: %+v", steps)
			}
			want, cont := "Continued: the first half was there.", steps[0].ID
			if tc.rollback {
				want, cont = "Started over: nothing was there.", 0
			}
			if steps[1].Answer != want || steps[1].Continues != cont {
				t.Errorf("the next night's attempt answered %q continuing step %d; want %q continuing %d", steps[1].Answer, steps[1].Continues, want, cont)
			}
			if pending, _ := journal.Pending(stateOf(t, task)); len(pending) != 0 {
				t.Errorf("journals left pending after the attempt ended done: %v", pending)
			}
			if _, err := os.Stat(filepath.Join(task, "progress.md")); (err == nil) == tc.rollback {
				t.Errorf("progress.md there: %v; want it kept by the continued attempt, gone after the rollback", err == nil)
			}
			if got, _ := l.Task(context.Background(), 1); got.State != ledger.Done {
				t.Errorf("task %s, want done", got.State)
			}
		})
	}
}

// TestSecondSignalExitsAtOnce: the first signal cancels the command, which
// then records what it was doing; a second one exits 130 at once, without
// waiting for that.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	cancelled := make(chan struct{})
	exited := make(chan int, 1)
	var stderr strings.Builder
	go onSignals(sigs, func(error) { close(cancelled) }, &stderr, func(code int) { exited <- code })
	sigs <- syscall.SIGINT
	<-cancelled
	select {
	case code := <-exited:
		t.Fatalf("the first signal exited %d; it must only cancel", code)
	default:
	}
	sigs <- syscall.SIGINT
	if code := <-exited; code != 130 || !strings.Contains(stderr.String(), "second signal") {
		t.Errorf("the second signal exited %d saying %q; want 130 at once", code, stderr.String())
	}
}

// TestSystemStopIsResumed: a 401 stops the night (exit 8); once the key is
// fixed, `nightshift night` in the same window used to join the ended night
// and exit 8 at once, losing the rest of the window. It now resumes the
// night: the stop and the resumption are in the ledger and the report, and
// the report still counts the night as cut short.
func TestSystemStopIsResumed(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	pipeline := fmt.Sprintf(`window: {start: "%s", end: "%s"}
models: {maker: {provider: scripted, scenario: maker.yaml}}
roles: {builder: {models: [maker], no_judge: true}}
`, now.Add(-time.Hour).Format("15:04"), now.Add(time.Hour).Format("15:04"))
	writeFiles(t, dir, map[string]string{"pipeline.yaml": pipeline, "maker.yaml": "loop: true\nturns:\n  - {status: 401}\n"})
	db := filepath.Join(dir, "night.db")
	for _, title := range []string{"a booklet", "a chart"} {
		if res := runCLI(t, "task", "add", title, "--score", "5", "--db", db); res.code != 0 {
			t.Fatalf("task add: %s", res.stderr)
		}
	}
	first := runCLI(t, "night", "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--db", db)
	if first.code != 8 || !strings.Contains(first.stderr, "system-stopped") {
		t.Fatalf("the 401 night: exit %d, want 8\n%s", first.code, first.stderr)
	}
	// The person fixes the key.
	writeFiles(t, dir, map[string]string{"maker.yaml": "loop: true\nturns:\n  - text: Built it.\n"})
	again := runCLI(t, "night", "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--db", db)
	if again.code != 0 || !strings.Contains(again.stderr, "resumed after a system stop") {
		t.Fatalf("the night again in its window: exit %d, want 0 with the night resumed\n%s", again.code, again.stderr)
	}
	if list := runCLI(t, "task", "list", "--db", db); strings.Count(list.stdout, "done") != 2 {
		t.Errorf("the resumed night did not do both tasks:\n%s", list.stdout)
	}
	rep := runCLI(t, "report", "--db", db)
	for _, want := range []string{"stopped system-stopped at", "resumed at", "counts as: cut short", "Nights cut short: 1"} {
		if !strings.Contains(rep.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, rep.stdout)
		}
	}
}

// TestCrashedStepLeavesNoRiverJobRunning: after a crash and a restart, the
// interrupted step's River job stayed running for about an hour. The
// restarted process of the same owner records the step interrupted and
// continues its attempt at once, on the workspace as the crash left it,
// and marks the dead job for cancellation; River's rescuer, on the leader
// elected after the dead one, settles it before the night ends.
func TestCrashedStepLeavesNoRiverJobRunning(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	writeFiles(t, dir, map[string]string{"pipeline.yaml": signalPipelineAt(now, false), "maker.yaml": longAttempt})
	db := filepath.Join(dir, "night.db")
	if res := runCLIEnv(t, []string{"NIGHTSHIFT_OWNER=box1"}, "task", "add", "a booklet", "--score", "9", "--db", db); res.code != 0 {
		t.Fatalf("task add: %s", res.stderr)
	}
	c := startNightChild(t, dir, "--pipeline", "pipeline.yaml", "--db", db)
	c.waitFor(t, "[checkpoint · step=2 ")
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.wait(t); code != -1 {
		t.Fatalf("the child exited %d, want killed\n%s", code, stderr)
	}
	writeFiles(t, dir, map[string]string{"maker.yaml": nextAttempt})
	again := startNightChild(t, dir, "--pipeline", "pipeline.yaml", "--db", db)
	again.waitFor(t, "[recover · step=1 task=1 left running by a process that died: its changes kept")
	again.waitFor(t, "[recover · job=")
	code, stderr := again.wait(t)
	if code != 0 {
		t.Fatalf("the restarted night: exit %d\n%s", code, stderr)
	}
	l, err := ledger.Open(context.Background(), db, ledger.Config{Owner: "box1"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background()) //nolint:errcheck // test cleanup
	n, _ := l.NightByName(context.Background(), now.Add(-time.Hour).Format("2006-01-02"))
	steps, _ := l.Steps(context.Background(), n.ID)
	if len(steps) != 2 || steps[0].State != ledger.Interrupted || steps[1].Continues != steps[0].ID ||
		steps[1].Answer != "Continued: the first half was there." {
		t.Fatalf("steps %+v; want the crashed one interrupted and continued", steps)
	}
	for _, s := range steps {
		if js, _ := l.JobState(context.Background(), s.Job); strings.HasPrefix(js, "running") {
			t.Errorf("step %d's River job is still %s", s.ID, js)
		}
	}
}
