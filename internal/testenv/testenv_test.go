package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Regression (issue 23): TestTheKeyLeaksNowhere took the first
// ANTHROPIC_API_KEY of any process on the machine, which for a user who
// followed the README was their own, and printed it. Scrub takes every
// credential out of the test binary's own environment.
func TestScrubRemovesCredentialsAndEndpoints(t *testing.T) {
	set := map[string]bool{
		"ANTHROPIC_API_KEY":  true,
		"OPENAI_API_KEY":     true,
		"GITHUB_TOKEN":       true,
		"PGPASSWORD":         true,
		"ANTHROPIC_BASE_URL": true,
		"NIGHTSHIFT_MODEL":   true,
		"NIGHTSHIFT_DB":      true,
		"TESTENV_PLAIN":      false,
		"NIGHTSHIFT_TEST_PG": false,
	}
	for name := range set {
		t.Setenv(name, "made-up-value-"+name)
	}
	gone := Scrub()
	sort.Strings(gone)
	for name, scrubbed := range set {
		_, still := os.LookupEnv(name)
		if still == scrubbed {
			t.Errorf("%s: still set = %v, want scrubbed = %v", name, still, scrubbed)
		}
	}
	for _, name := range gone {
		if strings.Contains(name, "made-up") {
			t.Errorf("Scrub returned a value: %q", name)
		}
	}
}

// testMainCalls is what a package's TestMain must call for its tests to
// start scrubbed.
var testMainCalls = regexp.MustCompile(`testenv\.(Main|Scrub)\(|statedirtest\.Run\(`)

// Every test binary in the module starts scrubbed: each folder with test
// files has a TestMain that calls Main or Scrub (statedirtest.Run calls
// Scrub). A package added without one fails here, by name.
func TestEveryPackageScrubs(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not %s: %v", root, err)
	}
	tests := map[string]bool{} // folder → has a scrubbing TestMain
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		dir := filepath.Dir(p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		src := string(b)
		ok := strings.Contains(src, "func TestMain(") && testMainCalls.MatchString(src)
		tests[dir] = tests[dir] || ok
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) < 10 {
		t.Fatalf("found only %d test folders under %s", len(tests), root)
	}
	for dir, ok := range tests {
		if !ok {
			rel, _ := filepath.Rel(root, dir)
			t.Errorf("%s: no TestMain calls testenv.Main or testenv.Scrub: its tests would see the user's keys", rel)
		}
	}
}
