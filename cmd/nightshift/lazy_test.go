package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/ledger"
)

// lazyStatsEnv, set to 1 in a child started as nightshift, makes it say
// on its last stderr line what it initialised on the way (lazyStats).
const lazyStatsEnv = "NIGHTSHIFT_TEST_LAZY_STATS"

// lazyStats counts what a process started that it may not have needed:
// the regular expressions it compiled and the ledgers (SQLite,
// PostgreSQL, River) it opened.
func lazyStats() string {
	return fmt.Sprintf("lazy-stats: regexps=%d ledgers=%d", lazyregexp.Compiled(), ledger.Opened())
}

// statsOf runs nightshift ARGS in dir and returns its exit status and
// what lazyStats said.
func statsOf(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	c := startChildEnv(t, dir, []string{lazyStatsEnv + "=1"}, args...)
	code, stderr := c.wait(t)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "lazy-stats: ") {
		t.Fatalf("nightshift %s: no stats on stderr:\n%s", strings.Join(args, " "), stderr)
	}
	return code, last
}

func TestStartingNightshiftCompilesNoRegexpAndOpensNoLedger(t *testing.T) {
	// The redactor looks for the passwords of URLs in the arguments (run,
	// in main.go) before anything is written, but its pattern is compiled
	// only for an argument that holds "://" (lazyregexp's Needs). The
	// claims check's hundred, the policy's, the providers' error patterns
	// wait for their first use.
	for _, args := range [][]string{{"--help"}, {"--version"}, {"run", "--help"}} {
		if code, stats := statsOf(t, t.TempDir(), args...); code != 0 || stats != "lazy-stats: regexps=0 ledgers=0" {
			t.Errorf("nightshift %s: exit %d, %s; want no regexp compiled and no ledger opened", strings.Join(args, " "), code, stats)
		}
	}
	if code, stats := statsOf(t, t.TempDir(), "run", "--help", "--base-url", "http://u:pw@127.0.0.1:9"); code != 0 || stats != "lazy-stats: regexps=1 ledgers=0" {
		t.Errorf("nightshift run --help --base-url URL: exit %d, %s; want the redactor's URL pattern compiled, and no ledger opened", code, stats)
	}
}

// TestEveryPatternsHintHolds proves, for every pattern of the binary
// that has a Needs hint, that each match holds one of its needs: a wrong
// hint would hide a match (a password in a URL, a claim).
func TestEveryPatternsHintHolds(t *testing.T) {
	if err := lazyregexp.CheckNeeds(); err != nil {
		t.Fatal(err)
	}
}

func TestAPlainRunOpensNoLedger(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "end.yaml")
	if err := os.WriteFile(scenario, []byte(endTurnAtOnce), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	writeFiles(t, work, map[string]string{"README.md": "x"})
	code, stats := statsOf(t, work, "run", "--provider", "scripted", "--scenario", scenario, "--no-judge", "say there is nothing to do")
	if code != 0 || !strings.HasSuffix(stats, " ledgers=0") {
		t.Errorf("a plain run: exit %d, %s; want no ledger (SQLite, PostgreSQL, River) opened", code, stats)
	}
}
