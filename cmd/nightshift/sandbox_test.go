package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/sandbox/sandboxtest"
	"github.com/nightshift-dev/nightshift/statedir"
)

// needBwrap skips a test where bubblewrap is not installed, and fails it
// where it does not work (sandboxtest.NeedBwrap).
func needBwrap(t *testing.T) {
	t.Helper()
	_, err := sandbox.New(sandbox.Config{Mode: sandbox.Bwrap, Dir: t.TempDir()})
	sandboxtest.NeedBwrap(t, err)
}

// checkCommand is one check the worker runs: a command that prints OK-name
// when the sandbox held, LEAK-name when it did not, and exits 1 so that
// its output's first line is in the tool event.
func checkCommand(name, breach string) string {
	return fmt.Sprintf(`%s && echo LEAK-%s || echo OK-%s; exit 1`, breach, name, name)
}

// The acceptance, through the command line: with --sandbox bwrap
// a command cannot write outside the workspace, reach the network, see
// nightshift's environment or /proc/<nightshift's pid>, or touch the state
// or .git/.
func TestWithBwrapACommandIsConfined(t *testing.T) {
	needBwrap(t)
	outside, err := os.MkdirTemp("/var/tmp", "nightshift-cli-")
	if err != nil {
		t.Skipf("needs a folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	state := filepath.Join(outside, "state")
	writeFiles(t, state, map[string]string{"limits/x": "state\n"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	work := t.TempDir()
	writeFiles(t, work, map[string]string{".git/config": "[core]\n"})
	checks := []string{
		checkCommand("write-outside", "touch "+filepath.Join(outside, "pwned")+" 2>/dev/null"),
		checkCommand("network", fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' 2>/dev/null", port)),
		checkCommand("environment", "env | grep -q sk-ant"),
		checkCommand("proc", fmt.Sprintf("test -e /proc/%d", os.Getpid())),
		checkCommand("proc-environ", "cat /proc/[0-9]*/environ 2>/dev/null | grep -q sk-ant"),
		checkCommand("state-dir", "ls -A "+state+" | grep -q ."),
		checkCommand("git", "{ echo '[core] fsmonitor = touch PWNED' >> .git/config; } 2>/dev/null"),
	}
	var sc strings.Builder
	sc.WriteString("turns:\n")
	for _, c := range checks {
		fmt.Fprintf(&sc, "  - tool_calls:\n      - {name: run_command, input: {command: %q}}\n", c)
	}
	sc.WriteString("  - text: checked\n")
	scenario := filepath.Join(t.TempDir(), "s.yaml")
	writeFiles(t, filepath.Dir(scenario), map[string]string{"s.yaml": sc.String()})
	events := filepath.Join(t.TempDir(), "ev.jsonl")

	res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=sk-ant-test-0123456789", statedir.Env + "=" + state},
		"run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge",
		"--approve", "run_command=allow", "--sandbox", "bwrap", "--events", events, "Check the sandbox")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	ev := readFile(t, events)
	for _, c := range []string{"write-outside", "network", "environment", "proc", "proc-environ", "state-dir", "git"} {
		if !strings.Contains(ev, `"result":"OK-`+c+`"`) {
			t.Errorf("%s: the sandbox did not hold (or the check did not run)", c)
		}
	}
	if strings.Contains(ev, `"result":"LEAK-`) {
		t.Errorf("events:\n%s", ev)
	}
	if got := readFile(t, filepath.Join(work, ".git", "config")); got != "[core]\n" {
		t.Errorf(".git/config = %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
		t.Error("a file was written outside the workspace")
	}
}

// The acceptance: a command is gone when nightshift is SIGKILLed.
// nightshift runs as a child process; its command holds a FIFO in the
// workspace open and says "started" through it. The test kills nightshift
// and reads the FIFO to its end, which comes exactly when the last
// process holding it is gone; the marker the command would write after
// its sleep must not appear. No sleep decides anything.
func TestTheCommandIsGoneWhenNightshiftIsKilled(t *testing.T) {
	for _, mode := range []string{"bwrap", "none"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "bwrap" {
				needBwrap(t)
			}
			work := t.TempDir()
			if err := syscall.Mkfifo(filepath.Join(work, "alive"), 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			scenario := filepath.Join(t.TempDir(), "s.yaml")
			writeFiles(t, filepath.Dir(scenario), map[string]string{"s.yaml": `turns:
  - tool_calls:
      - {name: run_command, input: {command: "exec 3>alive; echo started >&3; (sleep 1000; echo orphan >&3) & sleep 1000; touch marker"}}
  - text: never
`})
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge",
				"--approve", "run_command=allow", "--sandbox", mode, "Wait")
			cmd.Env = []string{asMainEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) //nolint:errcheck // killed below already
			lines := make(chan string, 100)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()

			// The FIFO opens when the command opens its other end; if
			// nightshift ends first, its stderr says why.
			opened := make(chan *os.File, 1)
			go func() {
				f, err := os.OpenFile(filepath.Join(work, "alive"), os.O_RDONLY, 0)
				if err == nil {
					opened <- f
				}
			}()
			var r *os.File
			var seen []string
			for r == nil {
				select {
				case r = <-opened:
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("nightshift ended before its command started:\n%s", strings.Join(seen, "\n"))
					}
					seen = append(seen, l)
				case <-time.After(60 * time.Second):
					t.Fatalf("the command did not start:\n%s", strings.Join(seen, "\n"))
				}
			}
			defer r.Close()
			buf := make([]byte, 64)
			if n, err := r.Read(buf); string(buf[:n]) != "started\n" {
				t.Fatalf("read %q, %v", buf[:n], err)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			r.SetReadDeadline(time.Now().Add(30 * time.Second)) //nolint:errcheck // a FIFO supports deadlines
			var rest bytes.Buffer
			if _, err := rest.ReadFrom(r); err != nil {
				t.Fatalf("the command still holds its FIFO after nightshift was killed: %v", err)
			}
			if rest.Len() > 0 {
				t.Errorf("a process wrote %q after nightshift died", rest.String())
			}
			if _, err := os.Stat(filepath.Join(work, "marker")); err == nil {
				t.Error("the command's shell ran on after nightshift died")
			}
		})
	}
}
