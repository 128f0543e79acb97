package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
)

// WriteFile writes data to the file at rel, creating the directories on
// the way. Like os.WriteFile, perm applies only to a new file (before the
// umask); an existing file keeps its mode, and a read-only one is refused
// with a permission error rather than replaced.
//
// The guard is asked about every directory to be created, the file, and
// the temporary file beside it that the content is staged in, all before
// anything changes. The temporary file is renamed over the target, so a
// crash never leaves a half-written file for the journal or the judge to
// find, and the journal knows to remove a staged file a crash left.
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	p, err := r.resolve(rel, false)
	if err != nil {
		return err
	}
	if p == "." {
		return &fs.PathError{Op: "write", Path: rel, Err: syscall.EISDIR}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.write(rel, p, data, perm)
}

// Edit reads the file at rel, hands its content to fn and writes back what
// fn returns, holding the change lock throughout so that two concurrent
// edits of one file cannot lose each other's change. When fn returns the
// content unchanged nothing is written (the guard is not asked) and Edit
// reports false. The file keeps its mode. An error from fn is returned as
// it is.
func (r *Root) Edit(rel string, fn func(old []byte) ([]byte, error)) (changed bool, err error) {
	return r.EditLimited(rel, 0, fn)
}

// EditLimited is Edit for a file of at most limit bytes (0: any size): a
// larger one is refused with a *TooBigError before it is read, so that an
// edit never holds more than limit bytes of it in memory.
func (r *Root) EditLimited(rel string, limit int64, fn func(old []byte) ([]byte, error)) (changed bool, err error) {
	p, err := r.resolve(rel, false)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f, fi, err := r.openRegular(rel, p)
	if err != nil {
		return false, err
	}
	if limit > 0 && fi.Size() > limit {
		f.Close()
		return false, &TooBigError{Path: rel, Size: fi.Size(), Limit: limit}
	}
	src := io.Reader(f)
	if limit > 0 {
		// It may grow while it is read.
		src = io.LimitReader(f, limit+1)
	}
	old, err := io.ReadAll(src)
	f.Close()
	if err != nil {
		return false, err
	}
	if limit > 0 && int64(len(old)) > limit {
		return false, &TooBigError{Path: rel, Size: int64(len(old)), Limit: limit}
	}
	data, err := fn(old)
	if err != nil {
		return false, err
	}
	if bytes.Equal(old, data) {
		return false, nil
	}
	if err := r.write(rel, p, data, 0); err != nil {
		return false, err
	}
	return true, nil
}

// ErrTooBig is matched by a *TooBigError.
var ErrTooBig = errors.New("file too big")

// TooBigError is a file past a size limit: the file tools' (their
// MaxFileSize), which never read such a file whole.
type TooBigError struct {
	Path        string
	Size, Limit int64
}

func (e *TooBigError) Error() string {
	return fmt.Sprintf("%s is %d bytes, past the limit of %d bytes", e.Path, e.Size, e.Limit)
}

// Is makes errors.Is(err, ErrTooBig) true.
func (e *TooBigError) Is(target error) bool { return target == ErrTooBig }

// Remove removes the file or empty directory at rel. A symlink is removed
// itself, not what it points to.
func (r *Root) Remove(rel string) error {
	p, err := r.resolve(rel, true)
	if err != nil {
		return err
	}
	if p == "." {
		return &PathError{Path: rel, Reason: "is the workspace root, which cannot be removed", Err: ErrInvalidPath}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.root.Lstat(p); err != nil {
		return err
	}
	if err := r.check(p); err != nil {
		return err
	}
	if err := r.root.Remove(p); err != nil {
		return err
	}
	r.done(p, true)
	return nil
}

// write does WriteFile's work for the resolved path p; rel is the path as
// given, for error messages. The caller holds mu.
func (r *Root) write(rel, p string, data []byte, perm fs.FileMode) error {
	dirs, err := r.missingDirs(filepath.Dir(p))
	if err != nil {
		return err
	}
	fi, err := r.root.Lstat(p)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if exists {
		switch {
		case fi.IsDir():
			return &fs.PathError{Op: "write", Path: rel, Err: syscall.EISDIR}
		case !fi.Mode().IsRegular():
			return &fs.PathError{Op: "write", Path: rel, Err: fmt.Errorf("not a regular file (%v)", fi.Mode().Type())}
		}
		// Renaming over a read-only file would succeed; opening it for
		// writing fails the way the owner of the file means it to.
		f, err := r.root.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		f.Close()
		perm = fi.Mode().Perm()
	}
	// The content is staged in a new file beside the target and renamed
	// over it: a crash leaves the old file or the new one, never half.
	// The staging name is a change to the workspace like any other, so
	// the guard hears of it first: a process killed between the write
	// and the rename leaves a file that recovery knows to remove.
	tmp := stagingName(p)
	if err := r.check(append(dirs, p, tmp)...); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := r.root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		r.done(d, false)
	}
	if err := r.writeTemp(tmp, data, perm); err != nil {
		return err
	}
	if exists {
		// The umask applied when the temporary file was created; an
		// existing file keeps exactly the mode it had.
		if err := r.root.Chmod(tmp, perm); err != nil {
			r.root.Remove(tmp)
			return err
		}
	}
	crashpoint.Hit("workspace: staged, not renamed")
	if err := r.root.Rename(tmp, p); err != nil {
		r.root.Remove(tmp)
		return err
	}
	crashpoint.Hit("workspace: renamed")
	r.done(p, true)
	return nil
}

// stagingName returns the name beside p that its content is staged in.
// One name per target, so that the journal saves its absence once per
// run, not once per write.
func stagingName(p string) string {
	return filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".nightshift-tmp")
}

// writeTemp writes data to the new file tmp. A file left there by a write
// that died without a journal is replaced (the guard has seen it).
func (r *Root) writeTemp(tmp string, data []byte, perm fs.FileMode) error {
	if err := r.root.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := r.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		r.root.Remove(tmp)
		return err
	}
	return nil
}

// missingDirs returns the directories on the way to dir that do not exist
// yet, outermost first.
func (r *Root) missingDirs(dir string) ([]string, error) {
	var missing []string
	for dir != "." && dir != "" {
		_, err := r.root.Lstat(dir)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append([]string{dir}, missing...)
		dir = filepath.Dir(dir)
	}
	return missing, nil
}
