package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNightConcurrencyAndItsOldNameWorkers: "worker" means a role's
// model (the failure scope); how many steps a process runs at once is
// --concurrency. --workers, its old name, still works for one release
// and says on stderr that it is deprecated (issue 24).
func TestNightConcurrencyAndItsOldNameWorkers(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p.yaml": `window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: b.yaml}}
roles: {builder: {models: [b], ceiling: 2}}
`,
		"b.yaml": "loop: true\nturns:\n  - text: Built it.\n",
	})
	db := filepath.Join(dir, "n.db")
	for _, title := range []string{"one", "two"} {
		if res := runCLI(t, "task", "add", title, "--score", "5", "--db", db); res.code != 0 {
			t.Fatalf("task add: %d %s", res.code, res.stderr)
		}
	}
	night := func(args ...string) result {
		return runCLI(t, append([]string{"night", "--pipeline", filepath.Join(dir, "p.yaml"), "--db", db, "--clock", "sim", "--from", "2025-10-21"}, args...)...)
	}
	const deprecated = "nightshift: --workers is deprecated: use --concurrency"
	t.Run("--concurrency runs steps at once, without a deprecation line", func(t *testing.T) {
		res := night("--concurrency", "2")
		if res.code != 0 || !strings.Contains(res.stderr, "builder steps finished 2; ") || strings.Contains(res.stderr, deprecated) {
			t.Fatalf("exit %d:\n%s", res.code, res.stderr)
		}
	})
	t.Run("--workers is an alias that says it is deprecated", func(t *testing.T) {
		res := night("--workers", "2")
		if res.code != 0 || !strings.Contains(res.stderr, deprecated) {
			t.Fatalf("exit %d, want 0 and the deprecation line:\n%s", res.code, res.stderr)
		}
	})
	t.Run("a bad count names the flag the person gave", func(t *testing.T) {
		for _, flag := range []string{"--concurrency", "--workers"} {
			res := night(flag, "0")
			if res.code != 2 || !strings.Contains(res.stderr, flag+" is 0") {
				t.Errorf("%s 0: exit %d: %s; want 2 naming %s", flag, res.code, res.stderr, flag)
			}
		}
	})
	t.Run("both at once is a usage error", func(t *testing.T) {
		if res := night("--workers", "2", "--concurrency", "2"); res.code != 2 {
			t.Errorf("exit %d: %s; want 2", res.code, res.stderr)
		}
	})
	t.Run("help shows --concurrency, not the old name", func(t *testing.T) {
		res := runCLI(t, "night", "--help")
		if !strings.Contains(res.stdout+res.stderr, "--concurrency") || strings.Contains(res.stdout+res.stderr, "--workers int") {
			t.Errorf("help:\n%s", res.stdout)
		}
	})
}
