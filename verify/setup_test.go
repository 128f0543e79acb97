package verify

import (
	"os"
	"path/filepath"
	"testing"
)

// writeBench writes one file for a benchmark.
func writeBench(b *testing.B, dir, name, content string) {
	b.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}

// setup makes a workspace holding files (path → content) and returns its
// absolute root.
func setup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for path, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mustRule parses spec or fails the test.
func mustRule(t *testing.T, spec, baseDir string) Rule {
	t.Helper()
	r, err := ParseRule(spec, baseDir)
	if err != nil {
		t.Fatalf("ParseRule(%q): %v", spec, err)
	}
	return r
}
