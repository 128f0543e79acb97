package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// treeOf describes every path under dir exactly: kind, mode (all of its
// bits) and content, or a symlink's target.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "symlink -> " + target
		case info.IsDir():
			out[rel] = "dir " + info.Mode().String()
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("file %s %q", info.Mode(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// killWorkspace makes the workspace of the kill tests: text and binary
// files, private and read-only ones, nested folders with their own modes,
// a symlink.
func killWorkspace(t *testing.T, work string) {
	t.Helper()
	files := []struct {
		path, content string
		mode          fs.FileMode
	}{
		{"notes.txt", "original notes\n", 0o644},
		{"src/main.go", "package main // hello\n", 0o640},
		{"private.key", "secret\n", 0o600},
		{"docs/a.md", "# a\n", 0o644},
		{"docs/sub/b.md", "read only\n", 0o444},
		{"bin.dat", "\x00\x01binary\xff\r\n", 0o755},
	}
	for _, f := range files {
		p := filepath.Join(work, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.content), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	for dir, mode := range map[string]fs.FileMode{"src": 0o750, "docs/sub": 0o700} {
		if err := os.Chmod(filepath.Join(work, dir), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("notes.txt", filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
}

// killScenario writes, edits, deletes, renames folders, changes modes,
// plants a symlink and runs commands, then the step brake ends the run
// (step-limit) and the rollback runs: a kill can land in any of them.
const killScenario = `
turns:
  - tool_calls:
      - {name: write_file, input: {path: notes.txt, content: "the run's notes\n"}}
      - {name: write_file, input: {path: new/deep/file.txt, content: "new\n"}}
  - tool_calls:
      - {name: edit_file, input: {path: src/main.go, old: "hello", new: "bye"}}
  - tool_calls:
      - {name: run_command, input: {command: "mv src lib && rm private.key && mkdir -p out/x && echo built > out/x/bin && chmod 700 lib"}}
  - tool_calls:
      - {name: write_file, input: {path: lib/extra.go, content: "package lib\n"}}
      - {name: run_command, input: {command: "ln -s lib src && chmod 600 notes.txt && rm -rf docs && printf 'changed\\0' > bin.dat"}}
  - tool_calls:
      - {name: list_dir, input: {path: .}}
`

// killRun is the run the kill tests kill: exit 3 (step-limit) when left
// alone, after a rollback.
func killRun(work, scenario string) []string {
	return []string{"run", "--dir", work, "--provider", "scripted", "--scenario", scenario,
		"--no-judge", "--approve", "danger=allow", "--max-steps", "5", "Reorganise the project"}
}

// crashPoints reads a child's crash log: the names of the points it
// reached, in order.
func crashPoints(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		_, name, _ := strings.Cut(sc.Text(), " ")
		out = append(out, name)
	}
	return out
}

// spread picks n points among 1..total, one at random in each of n equal
// stretches, so that they cover the whole run.
func spread(rng *rand.Rand, total, n int) []int {
	if n >= total {
		out := make([]int, total)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	out := make([]int, 0, n)
	for i := range n {
		lo, hi := i*total/n, (i+1)*total/n
		out = append(out, lo+1+rng.IntN(hi-lo))
	}
	return out
}

// TestAKillAtRandomPointsIsRecoveredByteForByte is issue 10's acceptance
// test: a real nightshift process is killed with SIGKILL at many points
// spread over a run that writes, edits, deletes, renames folders, changes
// modes and runs commands, and over its rollback; after `nightshift
// recover`, the workspace is as it was before the run, byte for byte and
// mode for mode, at every point. The points are the crash points of the
// journal and the workspace (internal/crashpoint): the child kills itself
// at the k-th, so each kill lands exactly where it is meant to, with no
// sleeps. NIGHTSHIFT_KILL_SEED picks other points; NIGHTSHIFT_KILL_POINTS
// how many.
func TestAKillAtRandomPointsIsRecoveredByteForByte(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per kill point")
	}
	seed := uint64(20261130)
	if s, err := strconv.ParseUint(os.Getenv("NIGHTSHIFT_KILL_SEED"), 10, 64); err == nil {
		seed = s
	}
	want := 60
	if n, err := strconv.Atoi(os.Getenv("NIGHTSHIFT_KILL_POINTS")); err == nil && n > 0 {
		want = n
	}
	dir := t.TempDir()
	scenario := filepath.Join(dir, "kill.yaml")
	if err := os.WriteFile(scenario, []byte(killScenario), 0o644); err != nil {
		t.Fatal(err)
	}

	// A run left alone: it counts its points, and ends rolled back.
	work := filepath.Join(dir, "counted")
	killWorkspace(t, work)
	original := treeOf(t, work)
	log := filepath.Join(dir, "counted.log")
	c := startChildEnv(t, dir, []string{crashLogEnv + "=" + log}, killRun(work, scenario)...)
	code, stderr := c.wait(t)
	if code != 3 {
		t.Fatalf("the run left alone exited %d, want 3 (step-limit)\n%s", code, stderr)
	}
	if strings.Count(stderr, "[tool · ") != 7 || strings.Contains(stderr, " error: ") {
		t.Fatalf("the run left alone did not run its seven tools cleanly:\n%s", stderr)
	}
	if diff := cmp.Diff(original, treeOf(t, work)); diff != "" {
		t.Fatalf("the run left alone did not roll back (-before +after):\n%s", diff)
	}
	all := crashPoints(t, log)
	if len(all) < want {
		t.Fatalf("the run has %d crash points, fewer than the %d to kill at", len(all), want)
	}

	rng := rand.New(rand.NewPCG(seed, seed))
	kinds := map[string]int{}
	for i, k := range spread(rng, len(all), want) {
		work := filepath.Join(dir, fmt.Sprintf("w%02d", i))
		killWorkspace(t, work)
		log := filepath.Join(dir, fmt.Sprintf("w%02d.log", i))
		c := startChildEnv(t, dir, []string{crashAtEnv + "=" + strconv.Itoa(k), crashLogEnv + "=" + log}, killRun(work, scenario)...)
		code, stderr := c.wait(t)
		reached := crashPoints(t, log)
		if code != -1 || len(reached) != k {
			t.Fatalf("point %d: the child exited %d after %d points, want killed at point %d\n%s", k, code, len(reached), k, stderr)
		}
		at := reached[k-1]
		kinds[at]++
		if at != all[k-1] {
			// The same run reaches the same points in the same order.
			first := 0
			for first < k && reached[first] == all[first] {
				first++
			}
			t.Fatalf("point %d is %q, but %q in the run left alone; the two first differ at point %d:\n killed: %q\n  alone: %q\n%s",
				k, at, all[k-1], first+1, reached[max(0, first-4):], all[max(0, first-4):min(len(all), k+4)], stderr)
		}
		res := runCLI(t, "recover", "--dir", work)
		if res.code != 0 {
			t.Fatalf("killed at point %d (%s): recover exited %d\n%s", k, at, res.code, res.stderr)
		}
		if diff := cmp.Diff(original, treeOf(t, work)); diff != "" {
			t.Fatalf("killed at point %d (%s): the workspace after recover (-before the run +now):\n%s\nrecover said:\n%s", k, at, diff, res.stderr)
		}
		if strings.Contains(res.stderr, "left as it is") {
			t.Fatalf("killed at point %d (%s): recover left paths as they are:\n%s", k, at, res.stderr)
		}
		if res := runCLI(t, "recover", "--dir", work); res.code != 0 || !strings.Contains(res.stderr, "nothing to recover") {
			t.Fatalf("killed at point %d (%s): a second recover exited %d:\n%s", k, at, res.code, res.stderr)
		}
	}
	t.Logf("seed %d: killed a run with SIGKILL at %d of its %d crash points, at %d kinds of point; "+
		"after recover the workspace was restored byte for byte, modes included, every time", seed, want, len(all), len(kinds))
}
