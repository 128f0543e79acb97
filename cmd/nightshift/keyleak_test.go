package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/statedir"
)

// theKey stands for a real API key; it must surface nowhere.
const theKey = "sk-ant-api03-THE-KEY-that-must-never-surface-0123456789"

// keyFragment is a part of theKey that is not the key (nor its start,
// which the test looks for too). The command that reads the environment
// of other processes reads only those the tests started (their
// environment has asMainEnv=1) and looks for this fragment, so that it
// finds the key this test made up and never the one of whoever runs the
// tests (issue 23: it took the first ANTHROPIC_API_KEY of any process on
// the machine, the user's own, and printed it).
const keyFragment = "THE-KEY-that-must-never-surface"

// leakScenario: the worker runs the command, then one that finds
// the key in any process's environment, then answers with the key in its
// text. The judge passes it.
const leakScenario = `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns:
      - text: "PASS: the key is ` + theKey + `"
  - name: worker
    turns:
      - tool_calls:
          - {name: run_command, input: {command: "tr '\\0' '\\n' < /proc/$PPID/environ | grep ANTHROPIC_API_KEY; exit 1"}}
      - tool_calls:
          - {name: run_command, input: {command: "for e in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $e 2>/dev/null | grep -qx ` + asMainEnv + `=1 && tr '\\0' '\\n' < $e; done 2>/dev/null | grep -m1 -F ` + keyFragment + `; exit 1"}}
      - text: "Found it: ` + theKey + `"
`

// Regression (issue 11): `run_command "tr '\0' '\n' < /proc/$PPID/environ
// | grep ANTHROPIC_API_KEY"` put the full key into stderr, --events and the
// run record, and into what the model read. Under --sandbox none the
// command can still read nightshift's /proc/<pid>/environ, so the key
// reaches its output; the redactor takes it out of everything after that.
// Under bwrap the command never sees it at all. nightshift runs as a child
// process started with the key, so that its /proc/<pid>/environ holds it
// as a real one's would.
func TestTheKeyLeaksNowhere(t *testing.T) {
	for _, mode := range []string{"none", "bwrap"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "bwrap" {
				if _, err := sandbox.New(sandbox.Config{Mode: sandbox.Bwrap, Dir: t.TempDir()}); errors.Is(err, sandbox.ErrNoBwrap) {
					t.Skipf("needs bubblewrap: %v", err)
				}
			}
			sc, err := scripted.Parse([]byte(leakScenario))
			if err != nil {
				t.Fatal(err)
			}
			sim := scripted.NewServer(sc, scripted.ServerConfig{})
			srv := httptest.NewServer(sim)
			defer srv.Close()
			work := t.TempDir()
			state := t.TempDir()
			events := filepath.Join(t.TempDir(), "ev.jsonl")
			res := runChildEnv(t, []string{"ANTHROPIC_API_KEY=" + theKey, statedir.Env + "=" + state},
				"run", "--dir", work, "--base-url", srv.URL, "--backoff", "1ms", "--sandbox", mode,
				"--approve", "run_command=allow", "--events", events, "Find the key")
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			where := map[string]string{"stdout": res.stdout, "stderr": res.stderr, "--events": readFile(t, events)}
			// Everything nightshift kept: the run record, the audit log,
			// the journal.
			records := 0
			err = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				where[p] = readFile(t, p)
				if strings.Contains(p, string(filepath.Separator)+"runs"+string(filepath.Separator)) {
					records++
				}
				return nil
			})
			if err != nil || records == 0 {
				t.Fatalf("no run record under %s: %v", state, err)
			}
			if _, ok := where["--events"]; !ok {
				t.Fatal("no events")
			}
			// What the model read: every request the simulator got.
			for i, req := range sim.Requests() {
				b, err := json.Marshal(req)
				if err != nil {
					t.Fatal(err)
				}
				where["request "+string(rune('0'+i))] = string(b)
			}
			for name, text := range where {
				if strings.Contains(text, theKey) || strings.Contains(text, theKey[:20]) {
					t.Errorf("%s shows the key:\n%s", name, text)
				}
			}
			if res.stdout != "Found it: [redacted]\n" {
				t.Errorf("stdout = %q", res.stdout)
			}
			if mode == "none" && !strings.Contains(where["--events"], "ANTHROPIC_API_KEY=[redacted]") {
				t.Errorf("the command did not find the key under none, so this test proves nothing:\n%s", where["--events"])
			}
			if mode == "bwrap" && strings.Contains(where["--events"], "ANTHROPIC_API_KEY=") {
				t.Errorf("under bwrap the command found the key:\n%s", where["--events"])
			}
		})
	}
}

// runChildEnv runs nightshift as a child process (this test binary as
// Main) with env added to a clean environment, and waits for it.
func runChildEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append([]string{asMainEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}, env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}
