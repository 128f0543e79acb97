package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// capture gathers the records of one step (a Before, a Snapshot) so that
// they reach the disk together, after the blobs they refer to.
type capture struct {
	j        *Journal
	recs     []record
	seen     map[string]bool
	newBlobs bool
}

func (j *Journal) newCapture() *capture { return &capture{j: j, seen: map[string]bool{}} }

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
	return walk(c.j.root, p, c.j.skipped, func(rel string) error {
		if c.has(rel) {
			return nil
		}
		st, err := c.save(rel)
		if err != nil {
			return fmt.Errorf("journal: save %s: %w", rel, err)
		}
		c.add(rel, st)
		return nil
	})
}

// save reads the state of p and, for a file, copies its content into a
// blob named by its hash, synced to disk.
func (c *capture) save(p string) (state, error) {
	tmp, err := os.CreateTemp(c.j.blobs, "tmp-*")
	if err != nil {
		return state{}, err
	}
	st, err := stat(c.j.root, p, tmp)
	if err == nil && st.Kind == file {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil || st.Kind != file {
		os.Remove(tmp.Name())
		return st, err
	}
	blob := filepath.Join(c.j.blobs, st.Hash)
	if _, err := os.Stat(blob); err == nil {
		// The same content is saved already (and was synced then).
		os.Remove(tmp.Name())
		return st, nil
	}
	if err := os.Rename(tmp.Name(), blob); err != nil {
		os.Remove(tmp.Name())
		return state{}, err
	}
	c.newBlobs = true
	return st, nil
}

// commit makes the step durable: the blobs' folder entries first, then the
// records, synced. Only then does the journal count the paths as captured.
func (c *capture) commit(extra ...record) error {
	recs := append(c.recs, extra...)
	if len(recs) == 0 {
		return nil
	}
	if c.newBlobs {
		if err := syncDir(c.j.blobs); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	if err := appendRecords(c.j.log, recs, true); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for _, r := range recs {
		c.j.m.apply(r)
	}
	return nil
}

// walk calls fn for every path below the folder start ("." for the whole
// workspace), parents before children, not following symlinks and not
// entering the paths skip names.
func walk(root *os.Root, start string, skip func(string) bool, fn func(rel string) error) error {
	return fs.WalkDir(root.FS(), filepath.ToSlash(start), func(p string, d fs.DirEntry, err error) error {
		rel := filepath.FromSlash(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone while we looked: nothing to save
			}
			return err
		}
		if rel == start {
			return nil
		}
		if skip(rel) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		return fn(rel)
	})
}

// isUnder reports whether p is inside the folder d.
func isUnder(p, d string) bool {
	return strings.HasPrefix(p, d+string(filepath.Separator))
}
