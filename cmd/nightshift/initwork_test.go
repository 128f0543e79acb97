package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Budgets of what nightshift's own packages may allocate while they are
// initialised, at every start of every command (`--help` as a night):
// package-level work is paid whether the command uses it or not, so it
// belongs in a sync.Once, a lazyregexp, or static data.
const (
	initBudgetAll = 32 << 10 // all of nightshift's packages together
	initBudgetOne = 16 << 10 // any one of them
)

// TestPackagesDoLittleWorkAtStart reads the runtime's own account of
// each package's initialisation (GODEBUG=inittrace=1) for `nightshift
// --version` and holds nightshift's packages to the budgets. The claims
// check's word lists (46 KB, built at start), the journal's block of
// zeros (64 KB) and a YAML parse of the model table (224 KB) were each
// paid by every start before.
func TestPackagesDoLittleWorkAtStart(t *testing.T) {
	c := startChildEnv(t, t.TempDir(), []string{"GODEBUG=inittrace=1"}, "--version")
	code, stderr := c.wait(t)
	if code != 0 {
		t.Fatalf("nightshift --version: exit %d\n%s", code, stderr)
	}
	type pkg struct {
		name          string
		bytes, allocs int
	}
	var ours []pkg
	total := 0
	for _, line := range strings.Split(stderr, "\n") {
		// init PKG @T ms, D ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/nightshift-dev/nightshift/") {
			continue
		}
		if f[1] == "github.com/nightshift-dev/nightshift/cmd/nightshift" {
			// This package, as the test binary builds it: its test files'
			// fixtures are initialised with it, which the command is not.
			continue
		}
		var p pkg
		p.name = f[1]
		if _, err := fmt.Sscan(f[7], &p.bytes); err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		if _, err := fmt.Sscan(f[9], &p.allocs); err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		ours = append(ours, p)
		total += p.bytes
	}
	if len(ours) == 0 {
		t.Fatalf("no inittrace line of nightshift's packages in:\n%.2000s", stderr)
	}
	slices.SortFunc(ours, func(a, b pkg) int { return b.bytes - a.bytes })
	var top []string
	for _, p := range ours[:min(5, len(ours))] {
		top = append(top, fmt.Sprintf("%s %d B in %d allocations", p.name, p.bytes, p.allocs))
	}
	if total > initBudgetAll {
		t.Errorf("nightshift's packages allocate %d B at start, over the budget of %d; the most:\n%s", total, initBudgetAll, strings.Join(top, "\n"))
	}
	if ours[0].bytes > initBudgetOne {
		t.Errorf("%s allocates %d B at start, over the budget of %d for one package", ours[0].name, ours[0].bytes, initBudgetOne)
	}
}

// TestTheMainStackIsGrownBeforeTheDependenciesInitialise reads the order
// of initialisation (GODEBUG=inittrace=1): internal/mainstack grows the
// main goroutine's stack (see its doc) only if it comes before the
// packages whose initialisation goes deep, the SDKs' reflection over
// their types among them. An import added to it would put it after them.
func TestTheMainStackIsGrownBeforeTheDependenciesInitialise(t *testing.T) {
	c := startChildEnv(t, t.TempDir(), []string{"GODEBUG=inittrace=1"}, "--version")
	code, stderr := c.wait(t)
	if code != 0 {
		t.Fatalf("nightshift --version: exit %d\n%s", code, stderr)
	}
	const mainstack = "github.com/nightshift-dev/nightshift/internal/mainstack"
	deep := []string{"github.com/", "go.opentelemetry.io/", "go.yaml.in/", "golang.org/x/", "modernc.org/"}
	var before []string
	for _, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		if f[1] == mainstack {
			if len(before) > 0 {
				t.Errorf("%s is initialised after %s", mainstack, strings.Join(before, ", "))
			}
			return
		}
		if slices.ContainsFunc(deep, func(p string) bool { return strings.HasPrefix(f[1], p) }) {
			before = append(before, f[1])
		}
	}
	t.Fatalf("%s is not initialised (is it still imported by main.go?):\n%.3000s", mainstack, stderr)
}
