package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSnapshotSparse measures a run's first snapshot over a
// workspace that holds one sparse file (truncate -s SIZE) and a few small
// files: what a command that made such a file costs the next command.
func BenchmarkSnapshotSparse(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int64
	}{{"1GiB", 1 << 30}, {"4GiB", 4 << 30}, {"1TiB", 1 << 40}} {
		b.Run(size.name, func(b *testing.B) {
			root, state := b.TempDir(), b.TempDir()
			for i := range 10 {
				os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d.txt", i)), []byte("small\n"), 0o644)
			}
			f, err := os.Create(filepath.Join(root, "sparse.img"))
			if err != nil {
				b.Fatal(err)
			}
			if err := f.Truncate(size.n); err != nil {
				b.Fatal(err)
			}
			f.WriteAt([]byte("data at the start"), 0)
			f.WriteAt([]byte("data in the middle"), size.n/2)
			f.Close()
			b.ResetTimer()
			for i := range b.N {
				j, err := Begin(root, state, fmt.Sprintf("bench-%d", i))
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
		})
	}
}

// BenchmarkSnapshotFiles measures a run's snapshot over a workspace of
// 50,000 small files in 500 folders: the first (every file saved), and
// the one before each later command (every file read again to see what
// changed, and once more after the command).
func BenchmarkSnapshotFiles(b *testing.B) {
	root, state := b.TempDir(), b.TempDir()
	for i := range 50_000 {
		d := filepath.Join(root, fmt.Sprintf("d%03d", i%500))
		if i < 500 {
			os.Mkdir(d, 0o755)
		}
		os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.go", i)), []byte(fmt.Sprintf("package p\n\n// %d\n", i)), 0o644)
	}
	b.Run("first", func(b *testing.B) {
		for i := range b.N {
			j, err := Begin(root, state, fmt.Sprintf("first-%d", i))
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
	})
	b.Run("again", func(b *testing.B) {
		j, err := Begin(root, state, "again")
		if err != nil {
			b.Fatal(err)
		}
		defer j.Commit()
		if err := j.Snapshot(b.Context()); err != nil {
			b.Fatal(err)
		}
		if err := j.AfterSnapshot(); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if err := j.Snapshot(b.Context()); err != nil {
				b.Fatal(err)
			}
			if err := j.AfterSnapshot(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDeepTree measures a snapshot, the command's end and the
// rollback over a folder tree 2,500 levels deep that a command made.
func BenchmarkDeepTree(b *testing.B) {
	root, state := b.TempDir(), b.TempDir()
	for i := range b.N {
		j, err := Begin(root, state, fmt.Sprintf("deep-%d", i))
		if err != nil {
			b.Fatal(err)
		}
		if err := j.Snapshot(b.Context()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		deepTree(b, root, "d", 2500)
		b.StartTimer()
		if err := j.AfterSnapshot(); err != nil {
			b.Fatal(err)
		}
		if _, err := j.Rollback(); err != nil {
			b.Fatal(err)
		}
	}
}

// deepTree makes a chain of n folders named name below root, with a file
// at the bottom, one level at a time (the whole path is too long for one
// system call).
func deepTree(tb testing.TB, root, name string, n int) {
	tb.Helper()
	d, err := os.OpenRoot(root)
	if err != nil {
		tb.Fatal(err)
	}
	for range n {
		if err := d.Mkdir(name, 0o755); err != nil {
			tb.Fatal(err)
		}
		next, err := d.OpenRoot(name)
		d.Close()
		if err != nil {
			tb.Fatal(err)
		}
		d = next
	}
	if err := d.WriteFile("bottom.txt", []byte("deep\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	d.Close()
}
