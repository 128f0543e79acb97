package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/sandbox"
)

// TestBatchAndNightKeepTheProbeInTheStateDirectory: the sandbox batch
// checks its tasks with, and the one a night checks its builder with,
// keep bubblewrap's probe where a run keeps it, in the state directory
// --state-dir names (issue 23, item 10). They made theirs without: each
// batch and night paid the probe at its start, and the runs after it in
// the process took that probe's result without keeping it.
func TestBatchAndNightKeepTheProbeInTheStateDirectory(t *testing.T) {
	var seen []string
	stop := errors.New("seen")
	old := newSandbox
	newSandbox = func(c sandbox.Config) (*sandbox.Sandbox, error) {
		seen = append(seen, c.ProbeCache)
		return nil, stop
	}
	t.Cleanup(func() { newSandbox = old })
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	writeFiles(t, dir, map[string]string{
		"tasks.yaml": "- name: one\n  task: Write one file.\n",
		"s.yaml":     "turns:\n  - text: Done.\n",
		"p.yaml":     "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {m1: {provider: scripted, scenario: s.yaml}}\nroles: {builder: {models: [m1]}}\n",
	})
	want := sandbox.ProbeCacheFile(state)
	for _, args := range [][]string{
		{"batch", "--tasks", filepath.Join(dir, "tasks.yaml"), "--work", filepath.Join(dir, "work"), "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge", "--state-dir", state},
		{"night", "--pipeline", filepath.Join(dir, "p.yaml"), "--db", filepath.Join(dir, "n.db"), "--state-dir", state},
	} {
		seen = nil
		res := runCLI(t, args...)
		if len(seen) == 0 {
			t.Errorf("%s made no sandbox (exit %d):\n%s", args[0], res.code, res.stderr)
			continue
		}
		for _, got := range seen {
			if got != want {
				t.Errorf("%s's sandbox keeps its probe in %q, want %q", args[0], got, want)
			}
		}
		if !strings.Contains(res.stderr, "seen") {
			t.Errorf("%s went on past its sandbox check:\n%s", args[0], res.stderr)
		}
	}
}
