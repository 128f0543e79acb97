package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Aliases keep the resolver's tests of file kinds short.
var errNotExist = fs.ErrNotExist

const modeSymlink = fs.ModeSymlink

// Root is an open workspace. It is safe for concurrent use: reads run in
// parallel, changes run one at a time so that the guard, the observer and
// a read-modify-write (Edit) each see a consistent tree.
type Root struct {
	dir  string
	root *os.Root

	// mu serialises changes and guards the fields below.
	mu      sync.Mutex
	guard   func(rel string) error
	after   func(rel string)
	changed map[string]bool
}

// Open opens the workspace at dir, made absolute. It creates nothing; dir
// must be an existing directory.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	return &Root{dir: abs, root: root, changed: map[string]bool{}}, nil
}

// Dir returns the workspace's absolute path.
func (r *Root) Dir() string { return r.dir }

// SetGuard installs g, which is called with the workspace-relative path
// (slash-separated, symlinks resolved) before any change: a write, a
// directory created for it, a removal. If g returns an error the change
// does not happen and the caller gets a *GuardError. The journal that
// makes rollback possible plugs in here. g runs while the Root's change
// lock is held, so it is never called concurrently with itself.
func (r *Root) SetGuard(g func(rel string) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.guard = g
}

// SetAfter installs f, which is called with the workspace-relative path
// after a change to it succeeded. The journal records there what the run
// wrote, to notice later changes made from outside. Like the guard, f is
// called with the change lock held.
func (r *Root) SetAfter(f func(rel string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.after = f
}

// AddChanged adds slash-separated workspace-relative paths that changed
// other than through this Root: what a command changed, as the journal
// saw it (journal.OnChange), so that Changed, and so the judge, sees every
// change of the run.
func (r *Root) AddChanged(paths []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range paths {
		r.changed[filepath.ToSlash(p)] = true
	}
}

// Changed returns the sorted, slash-separated workspace-relative paths of
// the files this Root wrote or removed since Open, and those AddChanged
// added. Directories created on the way are left out: the judge reads the
// final content of what the run changed, and a directory has none.
func (r *Root) Changed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.changed))
	for p := range r.changed {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Close releases the directory handle.
func (r *Root) Close() error { return r.root.Close() }

// GuardError is a change the guard refused.
type GuardError struct {
	// Path is the workspace-relative path of the refused change.
	Path string
	// Err is the guard's error.
	Err error
}

// Error says which change was refused and why.
func (e *GuardError) Error() string { return fmt.Sprintf("change to %s refused: %v", e.Path, e.Err) }

// Unwrap returns the guard's error.
func (e *GuardError) Unwrap() error { return e.Err }

// check asks the guard about every path, in order, before anything
// changes. The caller holds mu.
func (r *Root) check(paths ...string) error {
	// Paths reach the guard slash-separated on every platform.
	if r.guard == nil {
		return nil
	}
	for _, p := range paths {
		if err := r.guard(filepath.ToSlash(p)); err != nil {
			return &GuardError{Path: filepath.ToSlash(p), Err: err}
		}
	}
	return nil
}

// done records a successful change of p and tells the observer. The
// caller holds mu.
func (r *Root) done(p string, file bool) {
	p = filepath.ToSlash(p)
	if file {
		r.changed[p] = true
	}
	if r.after != nil {
		r.after(p)
	}
}
