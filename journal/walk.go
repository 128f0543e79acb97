package journal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// The limits of what the journal follows in a workspace. A command can
// make a folder tree as deep as it likes (one `mkdir a; cd a` at a time);
// every path of it is a string the journal keeps, so the sum of their
// lengths grows with the square of the depth. No real project comes near
// either limit.
const (
	// MaxDepth is how many folders deep the journal follows a workspace.
	MaxDepth = 4096
	// MaxPathLen is the longest workspace-relative path, in bytes, the
	// journal follows.
	MaxPathLen = 32 << 10
)

// ErrTooDeep is wrapped by the error of a snapshot of a workspace that
// holds a folder tree deeper than MaxDepth, or a path longer than
// MaxPathLen: nightshift cannot capture it for rollback, so no command may
// run until it is gone.
var ErrTooDeep = errors.New("folder tree too deep to capture")

// tooDeep names the folder whose content lies past the limits.
func tooDeep(rel string) error {
	return fmt.Errorf("%w: %s holds folders deeper than %d levels or paths longer than %d bytes, which nightshift does not follow; remove it (rm -rf) before a command may run",
		ErrTooDeep, rel, MaxDepth, MaxPathLen)
}

// visit is what a walk hands its function for each path: the path, the
// open folder that holds it, its name there and its Lstat, so that the
// function can read it with one system call whatever its depth.
type visit struct {
	rel  string
	dir  *os.Root
	name string
	info fs.FileInfo
}

// walker walks a workspace with os.Root's methods, one open folder per
// level: each step looks at one name in one open folder, so a tree 2,500
// levels deep costs what 2,500 folders side by side cost, not the square
// of it (os.Root resolves a long path one component at a time), and a
// name is any bytes the file system holds (the fs.FS view of a Root
// refuses names that are not valid UTF-8). It never follows a symlink,
// looks at ctx before each path, and does not enter the paths skip names.
// A folder past MaxDepth or MaxPathLen is not entered: with strict set
// that is an error (tooDeep), else its content is left out.
type walker struct {
	ctx    context.Context
	skip   func(string) bool
	strict bool
	fn     func(v visit) error
}

// walk calls fn for every path below the folder start ("." for the whole
// workspace), parents before children, in the byte order of their names.
// A start that is not a real folder (absent, a file, a symlink) holds
// nothing to walk.
func walk(ctx context.Context, root *os.Root, start string, skip func(string) bool, fn func(v visit) error) error {
	w := walker{ctx: ctx, skip: skip, fn: fn}
	return w.from(root, start)
}

// walkStrict is walk that refuses a tree past the limits instead of
// leaving its depths out: a snapshot must capture everything.
func walkStrict(ctx context.Context, root *os.Root, start string, skip func(string) bool, fn func(v visit) error) error {
	w := walker{ctx: ctx, skip: skip, strict: true, fn: fn}
	return w.from(root, start)
}

func (w *walker) from(root *os.Root, start string) error {
	if start == "." {
		return w.dir(root, ".", 0)
	}
	c := newCursor(root)
	defer c.close()
	d, err := c.dir(start)
	if err != nil || d == nil {
		return err
	}
	return w.dir(d, start, depthOf(start))
}

// dir walks what the open folder d, at rel and depth, holds.
func (w *walker) dir(d *os.Root, rel string, depth int) error {
	names, err := readNames(d)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone while we looked: nothing to walk
		}
		return fmt.Errorf("read folder %s: %w", rel, err)
	}
	for _, name := range names {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		child := join(rel, name)
		if w.skip != nil && w.skip(child) {
			continue
		}
		info, err := d.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := w.fn(visit{rel: child, dir: d, name: name, info: info}); err != nil {
			return err
		}
		if !info.IsDir() {
			continue
		}
		if depth+1 >= MaxDepth || len(child) >= MaxPathLen {
			if w.strict {
				if empty, _ := isEmpty(d, name); !empty {
					return tooDeep(child)
				}
			}
			continue
		}
		sub, err := openDir(d, name, info)
		if err != nil {
			return err
		}
		if sub == nil {
			continue // replaced while we looked
		}
		err = w.dir(sub, child, depth+1)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// readNames lists the open folder d, sorted.
func readNames(d *os.Root) ([]string, error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// isEmpty reports whether the folder name in d holds nothing.
func isEmpty(d *os.Root, name string) (bool, error) {
	f, err := d.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return errors.Is(err, io.EOF), nil
}

// openDir opens the folder name in d, which Lstat described as info, and
// returns nil if it is no longer that folder (replaced by a symlink, or
// gone, between the Lstat and the open): a walk never follows a link.
func openDir(d *os.Root, name string, info fs.FileInfo) (*os.Root, error) {
	sub, err := d.OpenRoot(name)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
		return nil, nil
	}
	if err != nil {
		// A symlink in its place that leads out of d is refused by
		// os.Root: it is no folder of the workspace.
		if fi, lerr := d.Lstat(name); lerr == nil && !fi.IsDir() {
			return nil, nil
		}
		return nil, err
	}
	now, err := sub.Stat(".")
	if err != nil || !os.SameFile(now, info) {
		sub.Close()
		return nil, nil
	}
	return sub, nil
}

// join is filepath.Join for a folder path and one name, without the
// cleaning a name made of any bytes does not need.
func join(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + string(filepath.Separator) + name
}

// depthOf is how many names the clean relative path rel has.
func depthOf(rel string) int {
	if rel == "." || rel == "" {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

// cursor opens the folders of a workspace for paths asked for one after
// another: it keeps open the chain of folders down to the last one asked
// for, so that paths in sorted order (parents before children, as the
// journal keeps them) cost one open per folder, however deep. A name on
// the way that is not a real folder (a symlink, a file, nothing) makes
// the path absent as far as the journal is concerned: it is never
// followed out of the workspace.
type cursor struct {
	top   *os.Root
	names []string
	subs  []*os.Root
}

func newCursor(top *os.Root) *cursor { return &cursor{top: top} }

// dir returns the open folder rel, or nil when rel or a folder above it
// is not a real folder. The folder stays the cursor's: do not close it.
func (c *cursor) dir(rel string) (*os.Root, error) {
	var parts []string
	if rel != "." && rel != "" {
		parts = strings.Split(rel, string(filepath.Separator))
	}
	k := 0
	for k < len(parts) && k < len(c.names) && parts[k] == c.names[k] {
		k++
	}
	c.truncate(k)
	for _, name := range parts[k:] {
		cur := c.at()
		info, err := cur.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			return nil, nil
		}
		sub, err := openDir(cur, name, info)
		if err != nil || sub == nil {
			return nil, err
		}
		c.names = append(c.names, name)
		c.subs = append(c.subs, sub)
	}
	return c.at(), nil
}

// parent returns the open folder that holds rel, and rel's name in it;
// nil when that folder is not a real one.
func (c *cursor) parent(rel string) (*os.Root, string, error) {
	d, err := c.dir(filepath.Dir(rel))
	return d, filepath.Base(rel), err
}

// forget closes what the cursor holds open at rel and below: a folder
// removed or made there must be opened afresh.
func (c *cursor) forget(rel string) {
	parts := strings.Split(rel, string(filepath.Separator))
	k := 0
	for k < len(parts) && k < len(c.names) && parts[k] == c.names[k] {
		k++
	}
	if k == len(parts) {
		c.truncate(k - 1)
	}
}

func (c *cursor) at() *os.Root {
	if len(c.subs) == 0 {
		return c.top
	}
	return c.subs[len(c.subs)-1]
}

func (c *cursor) truncate(k int) {
	for i := len(c.subs) - 1; i >= k; i-- {
		c.subs[i].Close()
	}
	c.subs, c.names = c.subs[:k], c.names[:k]
}

// close closes every folder the cursor opened.
func (c *cursor) close() { c.truncate(0) }
