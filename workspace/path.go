package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// StateDirName is the name of the folder at the workspace root where
// earlier versions kept nightshift's state. State lives outside every
// workspace now (package statedir), but the name stays refused to the
// tools: an old pending journal may still be there, and a repository
// could ship a .nightshift/ of its own to confuse them.
const StateDirName = ".nightshift"

// The sentinels a *PathError wraps, so callers can tell the refusals
// apart with errors.Is.
var (
	// ErrOutside: the path leaves the workspace (.., absolute, a symlink
	// pointing out).
	ErrOutside = errors.New("path leaves the workspace")
	// ErrStateDir: the path names the state folder, or reaches it
	// through a symlink.
	ErrStateDir = errors.New("path is in the state folder")
	// ErrInvalidPath: the path is empty or not a usable name.
	ErrInvalidPath = errors.New("invalid path")
)

// PathError is a refused tool path. Its message is written for the model:
// it says what was wrong and what to give instead.
type PathError struct {
	// Path is the path as the caller gave it.
	Path string
	// Reason completes the sentence `path "x" ...`.
	Reason string
	// Err is ErrOutside, ErrStateDir or ErrInvalidPath.
	Err error
}

// Error returns `path "../x" leaves the workspace` and the like.
func (e *PathError) Error() string { return fmt.Sprintf("path %q %s", e.Path, e.Reason) }

// Unwrap returns the sentinel.
func (e *PathError) Unwrap() error { return e.Err }

func outside(path, why string) *PathError {
	return &PathError{Path: path, Reason: "leaves the workspace" + why + "; give a path inside it, relative to its root", Err: ErrOutside}
}

func inState(path string) *PathError {
	return &PathError{Path: path, Reason: "is in the state folder " + StateDirName + ", which tools may not touch", Err: ErrStateDir}
}

// Clean validates a tool path and returns it cleaned, in the platform's
// form. It refuses the empty path, absolute paths, paths that climb out
// with "..", and paths into the state folder; "." (the root itself) is
// allowed, for list_dir. Clean looks only at the text: symlinks are
// checked when the path is used.
func (r *Root) Clean(rel string) (string, error) {
	switch {
	case rel == "":
		return "", &PathError{Path: rel, Reason: `is empty; give a path relative to the workspace root, for example "docs/notes.md" (or "." for the root)`, Err: ErrInvalidPath}
	case strings.ContainsRune(rel, 0):
		return "", &PathError{Path: rel, Reason: "contains a NUL byte", Err: ErrInvalidPath}
	case filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) || filepath.VolumeName(rel) != "":
		return "", &PathError{Path: rel, Reason: "is absolute; give a path relative to the workspace root", Err: ErrOutside}
	}
	c := filepath.Clean(rel)
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return "", outside(rel, "")
	}
	if isState(c) {
		return "", inState(rel)
	}
	return c, nil
}

// isState reports whether the clean relative path c is the state folder
// or inside it. The comparison ignores case because on case-insensitive
// file systems (macOS, Windows) ".NightShift" is the same folder.
func isState(c string) bool {
	first, _, _ := strings.Cut(c, string(filepath.Separator))
	return strings.EqualFold(first, StateDirName)
}

// maxLinks bounds symlink hops, as the kernel does (ELOOP).
const maxLinks = 40

// resolve cleans rel and follows its symlinks component by component
// inside the root, returning the real workspace-relative path. A link that
// is absolute, climbs out, or leads into the state folder is refused. The
// part of the path that does not exist yet is kept as written, so a path
// to be created resolves too. When keepLast is set the last component is
// not followed (Remove acts on a link, not on what it points to).
//
// Callers hand the resolved path, not rel, to os.Root: what was checked is
// what is opened, and os.Root still refuses any escape a concurrent change
// of the tree might open up between the check and the use.
func (r *Root) resolve(rel string, keepLast bool) (string, error) {
	c, err := r.Clean(rel)
	if err != nil {
		return "", err
	}
	if c == "." {
		return ".", nil
	}
	w := walker{top: r.root}
	defer w.reset()
	sep := string(filepath.Separator)
	parts := strings.Split(c, sep)
	done := ""
	links := 0
	for len(parts) > 0 {
		p := parts[0]
		parts = parts[1:]
		next := filepath.Join(done, p)
		if isState(next) {
			return "", inState(rel)
		}
		if keepLast && len(parts) == 0 {
			return next, nil
		}
		fi, err := w.cur().Lstat(p)
		if errors.Is(err, errNotExist) {
			// Nothing below a missing name exists either: keep the rest
			// as written (it is clean and has no "..").
			return filepath.Join(append([]string{next}, parts...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&modeSymlink == 0 {
			done = next
			if len(parts) > 0 {
				if !fi.IsDir() {
					return "", &fs.PathError{Op: "open", Path: rel, Err: syscall.ENOTDIR}
				}
				if err := w.descend(p); err != nil {
					// os.Root names the directory by its absolute path;
					// the model knows only the workspace-relative one.
					var pe *fs.PathError
					if errors.As(err, &pe) {
						return "", &fs.PathError{Op: pe.Op, Path: rel, Err: pe.Err}
					}
					return "", err
				}
			}
			continue
		}
		links++
		if links > maxLinks {
			return "", &PathError{Path: rel, Reason: "has too many levels of symlinks", Err: ErrInvalidPath}
		}
		target, err := w.cur().Readlink(p)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
			return "", outside(rel, fmt.Sprintf(" (through the symlink %q, which points to an absolute path)", filepath.ToSlash(next)))
		}
		t := filepath.Clean(filepath.Join(filepath.Dir(next), target))
		if t == ".." || strings.HasPrefix(t, ".."+sep) {
			return "", outside(rel, fmt.Sprintf(" (through the symlink %q)", filepath.ToSlash(next)))
		}
		// Start again from the root with the link's target in place of
		// the part of the path resolved so far.
		done = ""
		w.reset()
		if t != "." {
			parts = append(strings.Split(t, sep), parts...)
		}
	}
	if done == "" {
		return ".", nil
	}
	return done, nil
}

// walker holds a handle on each directory resolve has descended into, so
// that each step looks at one name in one open directory: asking the
// workspace root about "a/b/c" afresh at every depth would open every
// directory on the way again, a cost that grows with the square of the
// depth.
type walker struct {
	top  *os.Root
	subs []*os.Root
}

func (w *walker) cur() *os.Root {
	if len(w.subs) == 0 {
		return w.top
	}
	return w.subs[len(w.subs)-1]
}

// descend opens the directory name below the current one.
func (w *walker) descend(name string) error {
	sub, err := w.cur().OpenRoot(name)
	if err != nil {
		return err
	}
	w.subs = append(w.subs, sub)
	return nil
}

// reset closes the directories opened so far and starts again at the top.
func (w *walker) reset() {
	for _, s := range w.subs {
		s.Close()
	}
	w.subs = w.subs[:0]
}
