package journal

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The tests in this file are the regression tests of issue 25's
// liveness class: every walk and hash of the workspace stops when its
// context is done, costs what the data costs (not what a sparse file's
// size says), follows any depth a command can make in time proportional to
// it, and takes any name the file system holds.

// stopAfter is a context whose Err says Canceled from its nth call on:
// a time limit or a signal that comes while a walk or a hash is under way,
// without a clock or a sleep.
type stopAfter struct {
	context.Context
	n, calls int
}

func (c *stopAfter) Err() error {
	c.calls++
	if c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

func (c *stopAfter) Done() <-chan struct{} { return nil }

// sparse makes a file of size bytes with a few bytes of data at the start
// and in the middle and holes everywhere else: what `truncate -s 1T`
// and two small writes make.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skipf("this file system cannot hold a sparse file of %d bytes: %v", size, err)
	}
	if _, err := f.WriteAt([]byte("head"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("middle"), size/2); err != nil {
		t.Fatal(err)
	}
}

// blocksOf returns the bytes a file takes on disk.
func blocksOf(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Blocks * 512
}

// packBytes sums the size of a journal's saved contents.
func packBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	packs, _ := filepath.Glob(filepath.Join(dir, stepsName, "*.pack"))
	for _, p := range packs {
		n += blocksOf(t, p)
	}
	return n
}

// Issue 25: a 1 TiB sparse file was hashed and copied in full: the
// snapshot before the next command read 1 TiB of zeros and wrote them to
// the journal (the disk filled first), ignoring --timeout and SIGTERM.
// It is captured by its data, costs the journal a few KiB, and a rollback
// puts it back with its holes; the run's diff names it without reading
// it.
func TestASparseTerabyteFileCostsWhatItsDataCosts(t *testing.T) {
	root, stateDir := setup(t)
	const size = 1 << 40
	big := filepath.Join(root, "disk.img")
	sparse(t, big, size)
	j := begin(t, root, stateDir)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := j.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	sh(t, root, "printf changed | dd of=disk.img bs=1 seek=4096 conv=notrunc 2>/dev/null && rm a.txt")
	if err := j.AfterSnapshot(); err != nil {
		t.Fatal(err)
	}
	if n := packBytes(t, j.Dir()); n > 1<<20 {
		t.Errorf("the journal saved %d bytes for a file with 10 bytes of data", n)
	}
	patch, err := j.PatchContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(patch, "Files a/disk.img and b/disk.img differ (1099511627776 and 1099511627776 bytes, not shown)") {
		t.Errorf("the patch does not name the big file as not shown:\n%s", patch)
	}
	if _, err := j.RollbackContext(ctx); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(big)
	if err != nil || fi.Size() != size {
		t.Fatalf("disk.img after the rollback: %v, %v; want %d bytes", fi, err, size)
	}
	if n := blocksOf(t, big); n > 1<<20 {
		t.Errorf("disk.img takes %d bytes on disk after the rollback: its holes were filled", n)
	}
	f, err := os.Open(big)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, at := range []struct {
		off  int64
		want string
	}{{0, "head"}, {4096, "\x00\x00\x00\x00\x00\x00\x00"}, {size / 2, "middle"}, {size - 3, "\x00\x00\x00"}} {
		b := make([]byte, len(at.want))
		if _, err := f.ReadAt(b, at.off); err != nil || string(b) != at.want {
			t.Errorf("disk.img at %d = %q, %v; want %q", at.off, b, err, at.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "alpha\n" {
		t.Errorf("a.txt = %q, %v; want it back", b, err)
	}
}

// The zero-run form is decided by the content alone: a file of zeros
// written out in full hashes as the same file with holes, and a file
// with no block of zeros keeps the plain SHA-256 earlier versions wrote.
func TestAFilesHashDoesNotDependOnItsHoles(t *testing.T) {
	dir := t.TempDir()
	sparse(t, filepath.Join(dir, "holes"), 4<<20)
	dense := make([]byte, 4<<20)
	copy(dense, "head")
	copy(dense[2<<20:], "middle")
	if err := os.WriteFile(filepath.Join(dir, "dense"), dense, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "text"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v := newView(t.Context(), r, nil)
	defer v.close()
	get := func(name string) state {
		st, err := v.stat(name, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	holes, full := get("holes"), get("dense")
	if holes.Hash != full.Hash || !isZ1(holes.Hash) {
		t.Errorf("hashes: with holes %s, written out %s; want the same zero-run hash", holes.Hash, full.Hash)
	}
	if got, want := get("text").Hash, fmt.Sprintf("%x", sha256.Sum256([]byte("alpha\n"))); got != want {
		t.Errorf("the hash of a text file = %s, want its plain SHA-256", got)
	}
}

// Issue 25: --timeout and SIGTERM were ignored for minutes while a big
// file was hashed: the context was looked at between files only. A
// snapshot, the command's end, the rollback, the diff and recover all
// stop within a few chunks of a context that ends midway.
func TestEveryWalkAndHashStopsWhenItsContextEnds(t *testing.T) {
	root, stateDir := setup(t)
	big := make([]byte, 16<<20)
	for i := range big {
		big[i] = byte(i%251 + 1) // no block of zeros: the plain form
	}
	if err := os.WriteFile(filepath.Join(root, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	// A snapshot cut short returns the context's error and captures
	// nothing; the run may end as the time limit says.
	stop := &stopAfter{Context: t.Context(), n: 8}
	j := begin(t, root, stateDir)
	if err := j.Snapshot(stop); !errors.Is(err, context.Canceled) {
		t.Fatalf("Snapshot under a context that ends: err = %v, want context.Canceled", err)
	}
	if stop.calls > 8 {
		t.Errorf("the snapshot went on for %d looks at its ended context", stop.calls)
	}
	if len(j.m.prior) != 0 {
		t.Errorf("a snapshot cut short captured %d paths", len(j.m.prior))
	}

	// The run goes on and a command changes big.bin; the end of the
	// command is cut short: the snapshot stays open.
	stop = &stopAfter{Context: t.Context(), n: 1 << 30}
	if err := j.Snapshot(stop); err != nil {
		t.Fatal(err)
	}
	big[0] = 'X'
	if err := os.WriteFile(filepath.Join(root, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	stop.n = stop.calls + 3
	if err := j.AfterSnapshot(); !errors.Is(err, context.Canceled) {
		t.Fatalf("AfterSnapshot under a context that ends: err = %v, want context.Canceled", err)
	}
	if !j.m.snapshotOpen {
		t.Error("a cut-short AfterSnapshot closed the snapshot")
	}
	for name, run := range map[string]func(ctx context.Context) error{
		"the diff":     func(ctx context.Context) error { _, err := j.PatchContext(ctx); return err },
		"the rollback": func(ctx context.Context) error { _, err := j.RollbackContext(ctx); return err },
	} {
		stop := &stopAfter{Context: t.Context(), n: 4}
		if err := run(stop); !errors.Is(err, context.Canceled) || stop.calls > 8 {
			t.Errorf("%s under a context that ends: err = %v after %d looks, want context.Canceled within 8", name, err, stop.calls)
		}
	}
	die(j)
	stop = &stopAfter{Context: t.Context(), n: 4}
	if _, err := RecoverContext(stop, root, stateDir); !errors.Is(err, context.Canceled) || stop.calls > 8 {
		t.Errorf("recover under a context that ends: err = %v after %d looks, want context.Canceled within 8", err, stop.calls)
	}
	// Nothing was lost: the next recover, with time, finishes the work.
	want := tree(t, root)
	rep := mustRecover(t, root, stateDir)
	if !strings.Contains(rep.String(), "big.bin") {
		t.Errorf("recover did not restore big.bin:\n%s", rep)
	}
	if got := tree(t, root)["big.bin"]; got == want["big.bin"] {
		t.Error("big.bin still holds the command's change")
	}
}

// Issue 25: a folder tree 2,500 levels deep cost 90 s (os.Root resolves
// a path one name at a time, so every path cost its depth, and every
// walk the square of it). The walk holds one open folder per level; the
// tree is captured, and a rollback removes what a command made of it.
// (BenchmarkDeepTree measures it.)
func TestADeepTreeACommandMadeIsRolledBack(t *testing.T) {
	root, stateDir := setup(t)
	want := tree(t, root)
	j := begin(t, root, stateDir)
	deepTree(t, root, "keep", 2500)
	command(t, j, root, "true")
	// The command made a second deep tree and removed the first.
	if err := j.Snapshot(t.Context()); err != nil {
		t.Fatal(err)
	}
	deepTree(t, root, "d", 2500)
	sh(t, root, "rm -rf keep")
	if err := j.AfterSnapshot(); err != nil {
		t.Fatal(err)
	}
	rep, err := j.Rollback()
	if err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if len(rep.Removed) != 2501 || len(rep.Recreated) != 2501 {
		t.Errorf("removed %d, recreated %d; want 2501 each", len(rep.Removed), len(rep.Recreated))
	}
	if got := deepFile(t, root, "keep", 2500); got != "deep\n" {
		t.Errorf("the deep file is not back: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(root, "d")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the command's deep tree is still there: %v", err)
	}
	got := tree(t, root, "keep")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("workspace (-before +now):\n%s", diff)
	}
}

// deepFile reads bottom.txt at the foot of the chain deepTree made.
func deepFile(t *testing.T, root, name string, n int) string {
	t.Helper()
	d, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		next, err := d.OpenRoot(name)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		d = next
	}
	defer d.Close()
	b, err := d.ReadFile("bottom.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A tree deeper than the journal follows cannot be captured: a snapshot
// over one refuses (so the command does not run) and says what to
// remove. One a command makes is left in place by the rollback, named,
// and never hangs it.
func TestATreeDeeperThanTheJournalFollowsIsNamedNotWalkedForever(t *testing.T) {
	root, stateDir := setup(t)
	j := begin(t, root, stateDir)
	if err := j.Snapshot(t.Context()); err != nil {
		t.Fatal(err)
	}
	deepTree(t, root, "d", MaxDepth+10)
	if err := j.AfterSnapshot(); err != nil {
		t.Fatal(err)
	}
	err := j.Snapshot(t.Context())
	if !errors.Is(err, ErrTooDeep) || !strings.Contains(err.Error(), "rm -rf") {
		t.Fatalf("Snapshot over a tree too deep: err = %v, want ErrTooDeep saying what to do", err)
	}
	rep, err := j.Rollback()
	if err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if len(rep.Conflicts) != 1 || !strings.Contains(rep.Conflicts[0].Reason, "deeper than the journal follows") {
		t.Errorf("conflicts = %v, want the deep tree named", rep.Conflicts)
	}
}

// Issue 25: a folder whose name is not valid UTF-8 stopped rollback and
// recover: the walk went through os.Root's fs.FS view, which refuses such
// names, and JSON would have turned the name into another. Names are
// bytes, and come back exactly, symlink targets too.
func TestNamesThatAreNotUTF8AreRolledBackAndRecovered(t *testing.T) {
	for _, how := range []string{"rollback", "recover"} {
		t.Run(how, func(t *testing.T) {
			root, stateDir := setup(t)
			bad := "caf\xe9"
			mkdir(t, root, bad, 0o755)
			write(t, root, bad+"/n\xffote.txt", "bytes\n", 0o644)
			if err := os.Symlink("t\xfear\xffget", filepath.Join(root, "link\xfe")); err != nil {
				t.Fatal(err)
			}
			want := tree(t, root)
			j := begin(t, root, stateDir)
			command(t, j, root, "rm -rf caf* link* && mkdir 'x\xff' && echo new > 'x\xff/y\xfe'")
			if how == "rollback" {
				if _, err := j.Rollback(); err != nil {
					t.Fatalf("Rollback: %v", err)
				}
			} else {
				die(j)
				mustRecover(t, root, stateDir)
			}
			assertSame(t, want, root)
		})
	}
}

// Issue 25: every command in a workspace of many files read every file
// twice (before and after it). A file whose stat is as it was is not read
// again: only what changed is.
func TestASecondSnapshotReadsOnlyWhatChanged(t *testing.T) {
	root, stateDir := setup(t)
	for i := range 100 {
		write(t, root, fmt.Sprintf("f%03d.txt", i), fmt.Sprintf("file %d\n", i), 0o644)
	}
	j := begin(t, root, stateDir)
	// Past the window in which a file's times cannot tell two changes
	// apart (statcache.go).
	later := time.Now().Add(time.Hour)
	j.cache.now = func() time.Time { return later }
	command(t, j, root, "true")
	j.cache.reads = 0
	command(t, j, root, "echo changed > f042.txt")
	if j.cache.reads != 1 {
		t.Errorf("a command that changed one file cost %d file reads, want 1", j.cache.reads)
	}
	rep, err := j.Rollback()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rep.Restored) != "[f042.txt]" {
		t.Errorf("restored %v, want f042.txt", rep.Restored)
	}
}
