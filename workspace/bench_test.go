package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkStatDeep resolves a path eight folders deep, the case where
// checking every component for symlinks costs most.
func BenchmarkStatDeep(b *testing.B) {
	dir := b.TempDir()
	rel := filepath.Join(strings.Split("a/b/c/d/e/f/g/h/notes.md", "/")...)
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rel), []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for b.Loop() {
		if _, err := r.Stat(rel); err != nil {
			b.Fatal(err)
		}
	}
}
