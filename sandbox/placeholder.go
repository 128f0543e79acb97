package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// A placeholder is an empty folder (or file) that nightshift makes in a
// workspace where a path that must be read-only to commands does not
// exist yet (.nightshift, a hooks folder core.hooksPath names), so that
// bubblewrap has something to mount a read-only guard on; otherwise a
// command could make the path and write what git, or an old nightshift,
// would then trust. It lives while a command (or an MCP server) holds it
// and is removed when the last one lets go, so nothing is left in the
// workspace. Its mode is 0: the mark by which one that a killed
// nightshift left behind is known, taken over and removed at the next
// command.
type placeholder struct {
	n    int  // how many holders
	made bool // made by us (or a leftover of ours), so ours to remove
	// own, for one of nightshift's own files (holdOwnPlaceholder), is
	// the empty file that was made: removed only if it is still that.
	own fileID
}

var (
	placeholderMu sync.Mutex
	placeholders  = map[string]*placeholder{}
)

// holdPlaceholder makes sure p exists, making it (a folder when dir, else
// an empty file) if it does not, and counts one more holder. Its parent
// must exist. It reports false when p could not be made.
func holdPlaceholder(p string, dir bool) bool {
	placeholderMu.Lock()
	defer placeholderMu.Unlock()
	if h := placeholders[p]; h != nil {
		h.n++
		return true
	}
	h := &placeholder{n: 1}
	switch fi, err := os.Lstat(p); {
	case err == nil:
		// There already: the user's (kept), or a leftover of ours
		// (taken over, to be removed).
		h.made = leftover(fi)
	case errors.Is(err, fs.ErrNotExist):
		if dir {
			err = os.Mkdir(p, 0)
		} else {
			var f *os.File
			f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0)
			if err == nil {
				err = f.Close()
			}
		}
		if err != nil {
			return false
		}
		// The mode asked for is 0, but be sure of it whatever the umask.
		os.Chmod(p, 0) //nolint:errcheck // only the mark for leftovers
		h.made = true
	default:
		return false
	}
	placeholders[p] = h
	return true
}

// releasePlaceholder counts one holder less, and removes p when it was
// the last one, the placeholder is ours and it is still empty.
func releasePlaceholder(p string) {
	placeholderMu.Lock()
	defer placeholderMu.Unlock()
	h := placeholders[p]
	if h == nil {
		return
	}
	if h.n--; h.n > 0 {
		return
	}
	delete(placeholders, p)
	if h.own != (fileID{}) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 && idOf(fi) == h.own {
			os.Remove(p) //nolint:errcheck // an empty file left is harmless
		}
		return
	}
	if fi, err := os.Lstat(p); h.made && err == nil && leftover(fi) {
		os.Remove(p) //nolint:errcheck // a folder something filled stays
	}
}

// leftover reports whether the entry fi describes looks like a
// placeholder: a folder or an empty regular file of mode 0. (A folder of
// mode 0 cannot be listed but by root; removing one fails unless it is
// empty, which is the check that counts.)
func leftover(fi fs.FileInfo) bool {
	if fi.Mode().Perm() != 0 || fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
		return false
	}
	return fi.IsDir() || fi.Mode().IsRegular() && fi.Size() == 0
}

// firstMissing returns the outermost part of p, inside ws, that does not
// exist: where a placeholder for p must go. It is "" when p exists, or
// when a part on the way is not a folder.
func firstMissing(p, ws string) string {
	if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	for {
		parent := filepath.Dir(p)
		if parent == p || !under(parent, ws) {
			return ""
		}
		fi, err := os.Lstat(parent)
		switch {
		case err == nil && fi.IsDir():
			return p
		case err == nil:
			return "" // a file, or a symlink: nothing is made through it
		case !errors.Is(err, fs.ErrNotExist):
			return ""
		}
		p = parent
	}
}
