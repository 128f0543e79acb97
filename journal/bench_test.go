package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkBefore measures the price of a first touch: a blob and a log
// record, both synced, with their folder.
func BenchmarkBefore(b *testing.B) {
	root := b.TempDir()
	content := make([]byte, 4<<10)
	for i := range b.N {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d", i)), content, 0o644)
	}
	j, err := Begin(root, b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer j.Commit()
	b.ResetTimer()
	for i := range b.N {
		if err := j.Before(fmt.Sprintf("f%d", i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshot measures capturing a workspace of 200 files of 4 KiB
// before a command.
func BenchmarkSnapshot(b *testing.B) {
	root := b.TempDir()
	for i := range 200 {
		d := filepath.Join(root, fmt.Sprintf("d%d", i%10))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d", i)), []byte(fmt.Sprintf("%4096d", i)), 0o644)
	}
	state := b.TempDir()
	b.ResetTimer()
	for range b.N {
		j, err := Begin(root, state, "bench")
		if err != nil {
			b.Fatal(err)
		}
		if err := j.Snapshot(b.Context()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		j.Commit()
		b.StartTimer()
	}
}
