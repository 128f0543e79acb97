package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/statedir"
)

// TestARunWhoseConsoleGoesAwayGoesOn is a regression test: with its
// stderr piped into a reader that stopped reading
// (`nightshift run ... 2>&1 | head -1`), a run was killed by SIGPIPE at
// its next event line, half done. A run does not need its console: it
// goes on to its end, writes what it wrote, and exits with its outcome.
func TestARunWhoseConsoleGoesAwayGoesOn(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml": `turns:
  - tool_calls: [{name: write_file, input: {path: a.txt, content: one}}]
  - tool_calls: [{name: write_file, input: {path: b.txt, content: two}}]
  - text: Wrote a.txt and b.txt.
`,
		"work/README": "x\n",
	})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before the first line
	cmd := exec.Command(exe, "run", "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge",
		"--dir", filepath.Join(dir, "work"), "write a.txt and b.txt")
	cmd.Dir = dir
	cmd.Env = []string{asMainEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + t.TempDir(),
		statedir.Env + "=" + os.Getenv(statedir.Env)}
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Run()
	w.Close()
	if err != nil {
		t.Fatalf("the run ended %v, want exit 0", err)
	}
	for name, want := range map[string]string{"a.txt": "one", "b.txt": "two"} {
		if got, err := os.ReadFile(filepath.Join(dir, "work", name)); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
}
