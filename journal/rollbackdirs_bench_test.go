package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRollbackManyDirs measures the rollback of a command that made
// 20,000 empty folders (the trust review: 100,000 took two minutes).
func BenchmarkRollbackManyDirs(b *testing.B) {
	for range b.N {
		b.StopTimer()
		root, state := b.TempDir(), b.TempDir()
		j, err := Begin(root, state, "bench")
		if err != nil {
			b.Fatal(err)
		}
		if err := j.Snapshot(b.Context()); err != nil {
			b.Fatal(err)
		}
		for i := range 20000 {
			os.Mkdir(filepath.Join(root, fmt.Sprintf("d%d", i)), 0o755)
		}
		if err := j.AfterSnapshot(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := j.Rollback(); err != nil {
			b.Fatal(err)
		}
	}
}
