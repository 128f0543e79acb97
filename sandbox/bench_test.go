//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchWorkspace makes a workspace of n files in folders of 100, a tenth
// of them hard-linked from a store outside it (as pnpm does), and three
// repositories.
func benchWorkspace(b *testing.B, n int) string {
	b.Helper()
	base := b.TempDir()
	ws, store := filepath.Join(base, "ws"), filepath.Join(base, "store")
	for i := range n {
		dir := filepath.Join(ws, fmt.Sprintf("d%03d", i/100))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d", i))
		if i%10 == 0 {
			s := filepath.Join(store, fmt.Sprintf("f%d", i))
			if err := os.MkdirAll(store, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(s, []byte("x"), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Link(s, p); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, r := range []string{".git", "d001/.git", "d002/.git"} {
		if err := os.MkdirAll(filepath.Join(ws, r), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, r, "config"), []byte("[core]\n\thooksPath = .husky\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// BenchmarkPlan measures what issue 25 added before each command under
// bwrap: the walk of the workspace for its read-only and hidden paths.
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprintf("%d files", n), func(b *testing.B) {
			ws := benchWorkspace(b, n)
			s := &Sandbox{dir: ws, mode: Bwrap}
			for b.Loop() {
				s.newPlan(context.Background()).release()
			}
		})
	}
}

// BenchmarkRunTrue measures a whole command, `true`, under bwrap in a
// workspace of 10,000 files.
func BenchmarkRunTrue(b *testing.B) {
	if probeBwrap("bwrap", "").err != nil {
		b.Skip("needs a working bubblewrap")
	}
	ws := benchWorkspace(b, 10000)
	sb, err := New(Config{Mode: Bwrap, Dir: ws})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := sb.Run(context.Background(), "true", discard{}); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkOutsideHidden measures the look outside the workspace that
// each run's sandbox makes once (outsideHidden): the homes, the system's
// socket folders and the workspace's parent folders, scanned within
// their bounds.
func BenchmarkOutsideHidden(b *testing.B) {
	ws := b.TempDir()
	for b.Loop() {
		s := &Sandbox{dir: ws, mode: Bwrap}
		b.ReportMetric(float64(len(s.findOutsideHidden())), "paths")
	}
}
