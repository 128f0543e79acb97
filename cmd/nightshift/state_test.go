package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/statedir"
)

// runRecord reads the one run record of the workspace work.
func runRecord(t *testing.T, work string) map[string]any {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(stateOf(t, work), statedir.RunsName, "*.json"))
	if err != nil || len(paths) != 1 {
		t.Fatalf("run records of %s: %v %v, want one", work, paths, err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(readFile(t, paths[0])), &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// Issue 10, case 1: `run_command "git clean -fdxq"` in a git checkout, or
// `rm -rf .nightshift`, removed the journal and the audit log, which lived
// in the workspace: the rollback failed ("blobs/pack-…: no such file"),
// and recover found nothing. They live in the state directory now: the
// run that fails afterwards is rolled back, and the audit log holds every
// decision.
func TestACommandThatCleansTheWorkspaceCannotLoseTheJournalOrTheAuditLog(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, command := range []string{"git clean -fdxq", "rm -rf .nightshift"} {
		t.Run(command, func(t *testing.T) {
			dir := t.TempDir()
			work := filepath.Join(dir, "work")
			writeFiles(t, work, map[string]string{
				"tracked.txt":           "tracked\n",
				"untracked.txt":         "the only copy\n",
				".nightshift/notes.txt": "kept by an earlier version\n",
			})
			git := exec.Command("sh", "-c", "git init -q . && git add tracked.txt && git -c user.email=t@t -c user.name=t commit -qm init")
			git.Dir = work
			if out, err := git.CombinedOutput(); err != nil {
				t.Fatalf("git: %v\n%s", err, out)
			}
			before := treeOf(t, work)
			scenario := filepath.Join(dir, "s.yaml")
			writeFiles(t, dir, map[string]string{"s.yaml": `
loop: true
turns:
  - tool_calls:
      - {name: write_file, input: {path: tracked.txt, content: "edited by the run\n"}}
  - tool_calls:
      - {name: run_command, input: {command: "` + command + `"}}
`})
			res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", scenario,
				"--no-judge", "--approve", "danger=allow", "--max-steps", "2", "Tidy up")
			if res.code != 3 {
				t.Fatalf("exit %d, want 3 (step-limit)\n%s", res.code, res.stderr)
			}
			if diff := cmp.Diff(before, treeOf(t, work)); diff != "" {
				t.Errorf("the workspace after the rollback (-before +now):\n%s\n%s", diff, res.stderr)
			}
			rec := runRecord(t, work)
			f, err := os.Open(filepath.Join(stateOf(t, work), statedir.AuditName))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			entries, err := gate.ReadAudit(f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				if e.Run != rec["run"] {
					t.Errorf("audit entry of run %q, want %q", e.Run, rec["run"])
				}
				got = append(got, e.Tool+" "+e.Decision)
			}
			if diff := cmp.Diff([]string{"write_file allow", "run_command allow"}, got); diff != "" {
				t.Errorf("audit log (-want +got):\n%s", diff)
			}
		})
	}
}

// fifo makes a named pipe outside any workspace.
func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Issue 10, cases 2 and 3: after `write_file a.txt` (v1 to v2), a command
// wrote v3 and renamed a folder, and nightshift was killed while it ran.
// recover took v3 for somebody else's change and kept it; and the
// command, outliving the kill, went on writing after recover. Now recover
// refuses (exit 7, naming the PID) while a process of the run lives, and
// once it is gone restores everything from the snapshot taken before the
// command.
//
// Since issue 11 the command itself dies with nightshift (a parent-death
// signal and its own PID namespace; here --sandbox none, so that it can
// reach the FIFO outside the workspace). A process that outlives a run
// is possible only where the kernel gives no PID namespace: the test
// plays one, a process carrying the workspace's journal mark, as every
// command does.
func TestAKillWhileACommandRunsIsRecoveredOnceTheCommandIsGone(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFiles(t, work, map[string]string{"a.txt": "v1\n", "sub/deeper/x.txt": "x\n"})
	before := treeOf(t, work)
	ready := fifo(t)
	writeFiles(t, dir, map[string]string{"s.yaml": `
turns:
  - tool_calls:
      - {name: write_file, input: {path: a.txt, content: "v2\n"}}
  - tool_calls:
      - {name: run_command, input: {command: "echo v3 > a.txt && mv sub moved && exec 3>` + ready + ` && echo $NIGHTSHIFT_JOURNAL >&3 && exec sleep 3600"}}
  - {delay: 1h, text: "never reached"}
`})
	c := startChild(t, dir, "run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
		"--no-judge", "--approve", "danger=allow", "--sandbox", "none", "Rewrite a.txt")
	// The command says it got this far: its changes are made, it runs on
	// holding the FIFO open, and it carries the journal's mark.
	r, err := os.Open(ready)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if got, want := "NIGHTSHIFT_JOURNAL="+strings.TrimSpace(line), journal.Mark(work); got != want {
		t.Fatalf("the command's mark is %q, want %q", got, want)
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code, _ := c.wait(t); code != -1 {
		t.Fatalf("nightshift exited %d, want killed", code)
	}
	// The FIFO's end comes when the last process holding it is gone: the
	// command died with nightshift.
	r.SetReadDeadline(time.Now().Add(30 * time.Second)) //nolint:errcheck // a FIFO supports deadlines
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatalf("the command outlived nightshift: %v", err)
	}

	// A process of the run that outlived it, as one could without a PID
	// namespace.
	survivor := exec.Command("sleep", "3600")
	survivor.Env = []string{"PATH=" + os.Getenv("PATH"), journal.Mark(work)}
	if err := survivor.Start(); err != nil {
		t.Fatal(err)
	}
	cmdPID := survivor.Process.Pid
	t.Cleanup(func() { survivor.Process.Kill(); survivor.Wait() }) //nolint:errcheck // may be gone already

	res := runCLI(t, "recover", "--dir", work)
	if res.code != 7 || !strings.Contains(res.stderr, fmt.Sprintf("PID %d", cmdPID)) {
		t.Fatalf("recover while the command lives: exit %d, want 7 naming PID %d\n%s", res.code, cmdPID, res.stderr)
	}
	if got := readFile(t, filepath.Join(work, "a.txt")); got != "v3\n" {
		t.Fatalf("recover changed the workspace while refusing: a.txt = %q", got)
	}

	survivor.Process.Kill() //nolint:errcheck // waited for below
	survivor.Wait()         //nolint:errcheck // killed
	res = runCLI(t, "recover", "--dir", work)
	if res.code != 0 {
		t.Fatalf("recover: exit %d\n%s", res.code, res.stderr)
	}
	if diff := cmp.Diff(before, treeOf(t, work)); diff != "" {
		t.Errorf("the workspace after recover (-before the run +now):\n%s\n%s", diff, res.stderr)
	}
	if strings.Contains(res.stderr, "left as it is") {
		t.Errorf("recover took the command's changes for somebody else's:\n%s", res.stderr)
	}
}

// legacyJournal writes what an earlier version left in the workspace's
// .nightshift/journal/ when it died after overwriting notes.txt (whose
// content before was "before\n") and creating made.txt.
func legacyJournal(t *testing.T, work string) {
	t.Helper()
	const prior = "before\n"
	sum := sha256Hex(prior)
	log := fmt.Sprintf(`{"op":"begin","run":"old-run","root":%q,"time":"2025-12-01T00:00:00Z"}
{"op":"before","path":"notes.txt","state":{"kind":"file","mode":420,"hash":%q,"size":7,"pack":"pack-1"}}
{"op":"before","path":"made.txt","state":{"kind":"absent"}}
`, work, sum)
	writeFiles(t, work, map[string]string{
		".nightshift/journal/old-run/log.jsonl":    log,
		".nightshift/journal/old-run/blobs/pack-1": prior,
		"notes.txt": "half-done by the old run\n",
		"made.txt":  "made by the old run\n",
	})
}

// Existing users: a run that died under an earlier version left its
// journal in the workspace's .nightshift/journal/. Issue 25: that is where
// a run's command or a cloned repository can write one too, so it is
// never applied by itself: `nightshift run` starts (no exit 7), `nightshift
// recover` names it and lists what it would change, and `recover --legacy`
// applies it.
func TestALegacyJournalIsListedByRecoverAndAppliedOnlyWithLegacy(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFiles(t, work, map[string]string{"keep.txt": "keep\n"})
	legacyJournal(t, work)
	writeFiles(t, dir, map[string]string{"s.yaml": "turns:\n  - text: Done.\n"})

	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge", "Anything")
	if res.code != 0 {
		t.Fatalf("run beside a legacy journal: exit %d, want 0 (it is never applied by itself)\n%s", res.code, res.stderr)
	}
	// It says so, in one line naming the folder and what to do.
	warned := false
	for _, line := range strings.Split(res.stderr, "\n") {
		if strings.Contains(line, filepath.Join(work, ".nightshift", "journal")) && strings.Contains(line, "does not apply it") &&
			strings.Contains(line, "nightshift recover --dir "+work+"` lists") && strings.Contains(line, "nightshift recover --dir "+work+" --legacy` applies it") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("run did not warn, in one line, of the journal in the workspace and what to do:\n%s", res.stderr)
	}
	res = runCLI(t, "recover", "--dir", work)
	if res.code != 0 {
		t.Fatalf("recover: exit %d\n%s", res.code, res.stderr)
	}
	for _, want := range []string{"NOT APPLIED", "old-run", "restore   notes.txt", "remove    made.txt", "nightshift recover --dir " + work + " --legacy"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("recover does not say %q:\n%s", want, res.stderr)
		}
	}
	if got := readFile(t, filepath.Join(work, "notes.txt")); got != "half-done by the old run\n" {
		t.Errorf("notes.txt = %q: plain recover applied the legacy journal", got)
	}
	res = runCLI(t, "recover", "--dir", work, "--legacy")
	if res.code != 0 {
		t.Fatalf("recover --legacy: exit %d\n%s", res.code, res.stderr)
	}
	if got := readFile(t, filepath.Join(work, "notes.txt")); got != "before\n" {
		t.Errorf("notes.txt = %q, want the content before the old run", got)
	}
	if _, err := os.Stat(filepath.Join(work, "made.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("made.txt is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, ".nightshift", "journal", "old-run")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the legacy journal is still there: %v", err)
	}
	if res := runCLI(t, "recover", "--dir", work, "--legacy", "--discard"); res.code != 2 {
		t.Errorf("recover --legacy --discard: exit %d, want 2\n%s", res.code, res.stderr)
	}
}

// Issue 25, the attack as it was made: a command writes a journal into
// the workspace's .nightshift/journal/ that "restores" an executable
// .git/hooks/post-checkout. The next run exited 7 and sent the person to
// recover, which wrote the hook; the "undo: nightshift recover" advice of
// a paused run did too. Now the next run starts, following a paused run's
// advice undoes that run and applies nothing of the planted journal, and
// even recover --legacy never writes the hook.
func TestAJournalACommandPlantedIsNeverApplied(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFiles(t, work, map[string]string{"notes.txt": "notes\n", ".git/hooks/README": "hooks\n"})
	hook := "#!/bin/sh\necho pwned > \"$HOME/pwned\"\n"
	plant := fmt.Sprintf(`set -e
j=.nightshift/journal/evil
mkdir -p $j/blobs
printf '%%s' '%s' > $j/blobs/pack-1
printf '{"op":"begin","run":"evil","root":"%%s","time":"2026-01-01T00:00:00Z"}\n' "$PWD" > $j/log.jsonl
printf '{"op":"before","path":".git/hooks/post-checkout","state":{"kind":"file","mode":493,"hash":"%s","size":%d,"pack":"pack-1"}}\n' >> $j/log.jsonl
`, hook, sha256Hex(hook), len(hook))
	planter := fmt.Sprintf("turns:\n  - tool_calls: [{name: run_command, input: {command: \"sh %s\"}}]\n  - text: Done.\n", filepath.Join(dir, "plant.sh"))
	var s strings.Builder
	s.WriteString("turns:\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&s, "  - tool_calls: [{name: write_file, input: {path: notes.txt, content: \"step %d\\n\"}}]\n", i)
	}
	s.WriteString("  - text: Done.\n")
	writeFiles(t, dir, map[string]string{"plant.sh": plant, "planter.yaml": planter, "s.yaml": s.String()})

	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "planter.yaml"), "--no-judge",
		"--sandbox", "none", "--approve", "danger=allow", "Tidy up")
	if res.code != 0 {
		t.Fatalf("the planting run: exit %d\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(work, ".nightshift", "journal", "evil", "log.jsonl")); err != nil {
		t.Fatalf("the command did not plant its journal: %v", err)
	}
	res = runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
		"--budget-tokens", "3000", "Change notes.txt")
	if res.code != 9 || !strings.Contains(res.stderr, "undo:   nightshift recover --dir "+work) {
		t.Fatalf("the next run: exit %d, want 9 (it starts, and pauses) with the undo advice\n%s", res.code, res.stderr)
	}
	hookPath := filepath.Join(work, ".git", "hooks", "post-checkout")
	res = runCLI(t, "recover", "--dir", work)
	if res.code != 0 || !strings.Contains(res.stderr, "NOT APPLIED") || !strings.Contains(res.stderr, ".git/hooks/post-checkout") {
		t.Fatalf("recover, as the paused run advised: exit %d, want 0 naming the planted journal\n%s", res.code, res.stderr)
	}
	if got := readFile(t, filepath.Join(work, "notes.txt")); got != "notes\n" {
		t.Errorf("notes.txt = %q, want the paused run undone", got)
	}
	if _, err := os.Lstat(hookPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("recover wrote the planted hook: %v", err)
	}
	res = runCLI(t, "recover", "--dir", work, "--legacy")
	if _, err := os.Lstat(hookPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("recover --legacy wrote the planted hook: %v\n%s", err, res.stderr)
	}
	if res.code != 0 || !strings.Contains(res.stderr, "protected") {
		t.Errorf("recover --legacy: exit %d, want 0 saying it left the hook alone:\n%s", res.code, res.stderr)
	}
}

// Issue 10, case 5: with its log emptied, deleted or cut short, recover
// said "recovered … 0 restored", exited 0 and deleted the journal with the
// saved contents. Now it says what is damaged, what it restored and what
// not, exits 7 and keeps the journal; run refuses; --discard drops it.
func TestADamagedJournalMakesRecoverExit7AndKeepsIt(t *testing.T) {
	work, scenario, c := killedRun(t)
	c.wait(t)
	journals, err := filepath.Glob(filepath.Join(stateOf(t, work), statedir.JournalName, "*", "steps"))
	if err != nil || len(journals) != 1 {
		t.Fatalf("journals: %v %v", journals, err)
	}
	// The last step's record is lost: the saved content is still there.
	steps, _ := filepath.Glob(filepath.Join(journals[0], "*.jsonl"))
	if len(steps) < 2 {
		t.Fatalf("steps: %v", steps)
	}
	if err := os.Truncate(steps[0], 0); err != nil {
		t.Fatal(err)
	}

	for range 2 { // the same answer twice: nothing is lost by asking
		res := runCLI(t, "recover", "--dir", work)
		if res.code != 7 || !strings.Contains(res.stderr, "DAMAGED") || !strings.Contains(res.stderr, "--discard") {
			t.Fatalf("recover of a damaged journal: exit %d, want 7, the damage named and --discard\n%s", res.code, res.stderr)
		}
		if _, err := os.Stat(journals[0]); err != nil {
			t.Fatalf("the damaged journal was deleted: %v", err)
		}
	}
	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge", "Rewrite notes.txt")
	if res.code != 7 {
		t.Fatalf("run beside a damaged journal: exit %d, want 7\n%s", res.code, res.stderr)
	}
	res = runCLI(t, "recover", "--dir", work, "--discard")
	if res.code != 0 || !strings.Contains(res.stderr, "discarded") {
		t.Fatalf("recover --discard: exit %d\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(journals[0]); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("--discard left the journal: %v", err)
	}
	if res := runCLI(t, "recover", "--dir", work); res.code != 0 || !strings.Contains(res.stderr, "nothing to recover") {
		t.Fatalf("recover after --discard: exit %d\n%s", res.code, res.stderr)
	}
}

// Records and checkpoints older than --keep-state (30 days by default)
// are pruned when a run starts; a pending journal never is.
func TestOldRecordsArePrunedWhenARunStarts(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFiles(t, dir, map[string]string{"work/x.txt": "x\n", "s.yaml": "turns:\n  - text: Done.\n"})
	state, err := statedir.Workspace(mustBase(t), work)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-31 * 24 * time.Hour)
	recent := time.Now().Add(-29 * 24 * time.Hour)
	for name, mt := range map[string]time.Time{"runs/old.json": old, "runs/recent.json": recent, "checkpoints/old": old} {
		writeFiles(t, state, map[string]string{name: "{}"})
		if err := os.Chtimes(filepath.Join(state, name), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) {
		t.Helper()
		res := runCLI(t, append([]string{"run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge"}, append(args, "Anything")...)...)
		if res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
	}
	run("--keep-state", "0")
	if _, err := os.Stat(filepath.Join(state, "runs/old.json")); err != nil {
		t.Fatalf("--keep-state 0 pruned: %v", err)
	}
	run()
	for name, gone := range map[string]bool{"runs/old.json": true, "checkpoints/old": true, "runs/recent.json": false} {
		_, err := os.Stat(filepath.Join(state, name))
		if gone != errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: want gone=%v, stat err %v", name, gone, err)
		}
	}
}

func mustBase(t *testing.T) string {
	t.Helper()
	b, err := statedir.Base("")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
