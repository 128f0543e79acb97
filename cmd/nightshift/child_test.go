package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nightshift-dev/nightshift/statedir"
)

// child is a real nightshift process: this test binary, started with
// NIGHTSHIFT_TEST_AS_MAIN=1 so that its TestMain runs Main.
type child struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stderr *bufio.Scanner
	// seen holds the stderr lines read so far.
	seen []string
}

// startChild starts `nightshift ARGS...` in dir with a clean environment
// (no model keys), stdin not a terminal, and stderr to be read line by
// line as it is written.
func startChild(t testing.TB, dir string, args ...string) *child {
	t.Helper()
	return startChildEnv(t, dir, nil, args...)
}

// startChildEnv is startChild with env (NAME=value) added to the child's
// environment.
func startChildEnv(t testing.TB, dir string, env []string, args ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = []string{asMainEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + t.TempDir(),
		statedir.Env + "=" + os.Getenv(statedir.Env)}
	cmd.Env = append(cmd.Env, env...) // the last of a name wins
	c := &child{cmd: cmd}
	if c.stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.stderr = bufio.NewScanner(errPipe)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck // it may have exited already
			cmd.Wait()         //nolint:errcheck // reaped only
		}
	})
	return c
}

// waitFor reads stderr until a line starts with prefix, which means the
// child has got that far: no sleeps, the child says when.
func (c *child) waitFor(t *testing.T, prefix string) string {
	t.Helper()
	for c.stderr.Scan() {
		line := c.stderr.Text()
		c.seen = append(c.seen, line)
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	t.Fatalf("the child ended its stderr without a line starting %q:\n%s", prefix, strings.Join(c.seen, "\n"))
	return ""
}

// wait reads the rest of stderr and returns the exit status and all of
// stderr.
func (c *child) wait(t testing.TB) (int, string) {
	t.Helper()
	for c.stderr.Scan() {
		c.seen = append(c.seen, c.stderr.Text())
	}
	io.Copy(io.Discard, c.stdout) //nolint:errcheck // drained so Wait can return
	err := c.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, strings.Join(c.seen, "\n")
	case errors.As(err, &ee):
		return ee.ExitCode(), strings.Join(c.seen, "\n")
	}
	t.Fatal(err)
	return 0, ""
}

// stalledScenario overwrites notes.txt, then stalls for an hour: the
// write has returned and the run is midway.
const stalledScenario = `
turns:
  - tool_calls:
      - {name: write_file, input: {path: notes.txt, content: "NEW BYTES\n"}}
      - {name: write_file, input: {path: created.txt, content: "created\n"}}
  - {delay: 1h, text: "never reached"}
`

// originalNotes is not text on purpose: it must come back byte for byte.
const originalNotes = "original\x00bytes\r\nno newline at the end"

// stalledWorkspace makes a workspace with notes.txt (mode 0640) and the
// scenario beside it, and returns the workspace and the scenario path.
func stalledWorkspace(t *testing.T) (work, scenario string) {
	t.Helper()
	dir := t.TempDir()
	work = filepath.Join(dir, "work")
	writeFiles(t, dir, map[string]string{"work/notes.txt": originalNotes, "s.yaml": stalledScenario})
	if err := os.Chmod(filepath.Join(work, "notes.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	return work, filepath.Join(dir, "s.yaml")
}

// killedRun starts `nightshift run` on a stalledWorkspace and kills it
// with SIGKILL right after its second write returned (the child's own
// [tool · write_file] lines say when), and returns the workspace, the
// scenario and the child, killed but not yet waited for.
func killedRun(t *testing.T) (work, scenario string, c *child) {
	t.Helper()
	work, scenario = stalledWorkspace(t)
	c = startChild(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "Rewrite notes.txt")
	c.waitFor(t, "[tool · write_file ")
	c.waitFor(t, "[tool · write_file ")
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return work, scenario, c
}

// checkOriginal fails unless the workspace is as stalledWorkspace made it.
func checkOriginal(t *testing.T, work string) {
	t.Helper()
	notes := filepath.Join(work, "notes.txt")
	if got := readFile(t, notes); got != originalNotes {
		t.Errorf("notes.txt = %q, want the original bytes %q", got, originalNotes)
	}
	fi, err := os.Stat(notes)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("notes.txt has mode %v, want 0640 back", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(work, "created.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("created.txt is still there (err %v); the file the run created must be removed", err)
	}
}
