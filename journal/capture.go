package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/statedir"
)

// capture gathers the records of one step (a Before, a Snapshot) so that
// they reach the disk together, after the contents they refer to.
type capture struct {
	j     *Journal
	v     *view
	n     int // this step's number
	recs  []record
	seen  map[string]bool
	pack  *os.File         // this step's pack of saved contents, created on the first save
	size  int64            // the bytes of the pack that hold saved contents
	saved map[string]state // contents saved in this step, by hash
}

// newCapture starts a step; ctx stops its reads and hashes. Close its
// view with abort (or after commit).
func (j *Journal) newCapture(ctx context.Context) *capture {
	return &capture{j: j, v: newView(ctx, j.root, j.cache), n: j.steps + 1, seen: map[string]bool{}, saved: map[string]state{}}
}

func (c *capture) stepsDir() string { return filepath.Join(c.j.dir, stepsName) }

// has reports whether p is captured, in the journal or in this step.
func (c *capture) has(p string) bool {
	if _, ok := c.j.m.prior[p]; ok {
		return true
	}
	return c.seen[p]
}

// add records st as the prior state of p.
func (c *capture) add(p string, st state) {
	c.seen[p] = true
	c.recs = append(c.recs, record{Op: opBefore, Path: p, State: &st})
}

// tree captures p and, if it is a folder, everything in it that is not
// captured yet.
func (c *capture) tree(p string) error {
	st, err := c.save(p)
	if err != nil {
		return fmt.Errorf("journal: save %s: %w", p, err)
	}
	if !c.has(p) {
		c.add(p, st)
	}
	if st.Kind != dir {
		return nil
	}
	return walk(c.v.ctx, c.j.root, p, c.j.skipped, func(x visit) error {
		if c.has(x.rel) {
			return nil
		}
		st, err := c.saveVisit(x)
		if err != nil {
			return fmt.Errorf("journal: save %s: %w", x.rel, err)
		}
		c.add(x.rel, st)
		return nil
	})
}

// save reads the state of p and, for a file whose content is not saved
// yet, appends the content to this step's pack; commit syncs the pack.
func (c *capture) save(p string) (state, error) {
	return c.saveWith(func(w io.Writer, reset func() error) (state, error) { return c.v.stat(p, w, reset) })
}

// saveVisit is save for a path a walk found.
func (c *capture) saveVisit(x visit) (state, error) {
	return c.saveWith(func(w io.Writer, reset func() error) (state, error) {
		return c.v.statAt(x.dir, x.rel, x.name, x.info, w, reset)
	})
}

func (c *capture) saveWith(read func(save io.Writer, reset func() error) (state, error)) (state, error) {
	if c.pack == nil {
		// O_TRUNC: a pack of this number can only be left by this run's
		// own step that failed before its records were written.
		f, err := statedir.OpenFile(filepath.Join(c.stepsDir(), packFile(c.n)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return state{}, err
		}
		c.pack = f
	}
	st, err := read(c.pack, func() error { return c.rewind(nil) })
	if err != nil || st.Kind != file {
		// Nothing worth keeping was written; cut the pack back.
		return st, c.rewind(err)
	}
	if loc, ok := c.blobAt(st.Hash); ok {
		st.Pack, st.Off = loc.Pack, loc.Off
		return st, c.rewind(nil)
	}
	st.Pack, st.Off = packFile(c.n), c.size
	c.size += st.saved()
	c.saved[st.Hash] = st
	return st, nil
}

// rewind drops what the last save wrote past the end of the pack's saved
// content, and returns err.
func (c *capture) rewind(err error) error {
	if terr := c.pack.Truncate(c.size); err == nil {
		err = terr
	}
	if _, serr := c.pack.Seek(c.size, io.SeekStart); err == nil {
		err = serr
	}
	return err
}

// blobAt returns where content with this hash is saved: in this step's
// pack, or in an earlier one (the journal knows it).
func (c *capture) blobAt(hash string) (state, bool) {
	if st, ok := c.saved[hash]; ok {
		return st, true
	}
	st, ok := c.j.m.blobs[hash]
	return st, ok
}

// commit makes the step durable, in the order that recovery relies on:
// the pack's content, then the step's records, each synced. Only then
// does the journal count the paths as captured. One pack and one step
// file per step, so that a snapshot of many files costs a few disk
// flushes, not one each.
func (c *capture) commit(extra ...record) error {
	recs := append(c.recs, extra...)
	if err := c.finishPack(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if len(recs) == 0 {
		return nil
	}
	crashpoint.Hit("journal: pack synced, step not written")
	if err := writeStep(c.stepsDir(), c.n, recs); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	c.j.steps = c.n
	for _, r := range recs {
		c.j.m.apply(r)
	}
	crashpoint.Hit("journal: step durable")
	return nil
}

// finishPack syncs the pack, or removes it when it holds nothing.
func (c *capture) finishPack() error {
	if c.pack == nil {
		return nil
	}
	f := c.pack
	c.pack = nil
	if c.size == 0 {
		f.Close()
		return os.Remove(f.Name())
	}
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// abort drops the pack of a step that failed before commit; after a
// commit it does nothing.
func (c *capture) abort() {
	c.v.close()
	if c.pack != nil {
		c.pack.Close()
		os.Remove(c.pack.Name())
	}
}

// openBlob returns the saved content of a file state, from the folder of
// packs blobs, checked against its hash as it is read.
func openBlob(blobs string, st state) (io.ReadCloser, error) {
	if st.Pack == "" || !filepath.IsLocal(st.Pack) || strings.ContainsRune(st.Pack, filepath.Separator) {
		return nil, fmt.Errorf("no saved content is recorded (pack %q)", st.Pack)
	}
	if fi, err := os.Lstat(blobs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("the folder of saved contents %s is missing or not a folder", blobs)
	}
	f, err := statedir.OpenFile(filepath.Join(blobs, st.Pack), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	n := st.saved()
	return &checked{f: f, r: io.NewSectionReader(f, st.Off, n), h: sha256.New(), want: sumOf(st.Hash), size: n}, nil
}

// errDamagedBlob means saved content does not match its hash.
var errDamagedBlob = errors.New("the saved content is damaged (its hash does not match)")

// checked reads a section of a pack and fails at its end if the content
// does not match its hash or is short.
type checked struct {
	f    *os.File
	r    io.Reader
	h    hash.Hash
	want string
	size int64
	n    int64
}

func (c *checked) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if err == io.EOF && (c.n != c.size || hex.EncodeToString(c.h.Sum(nil)) != c.want) {
		return n, errDamagedBlob
	}
	return n, err
}

func (c *checked) Close() error { return c.f.Close() }

// isUnder reports whether p is inside the folder d.
func isUnder(p, d string) bool {
	return d == "." || strings.HasPrefix(p, d+string(filepath.Separator))
}
