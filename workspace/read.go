package workspace

import (
	"bytes"
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

// ReadFile returns the content of the file at rel, which must be a
// regular file (see ErrNotRegular).
func (r *Root) ReadFile(rel string) ([]byte, error) {
	p, err := r.resolve(rel, false)
	if err != nil {
		return nil, err
	}
	f, _, err := r.openRegular(rel, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadHead returns at most n bytes from the start of the file at rel and
// the file's full size, so a tool can cap what it shows without reading a
// huge file into memory. A directory gives an error wrapping
// syscall.EISDIR.
func (r *Root) ReadHead(rel string, n int64) ([]byte, int64, error) {
	p, err := r.resolve(rel, false)
	if err != nil {
		return nil, 0, err
	}
	f, fi, err := r.openRegular(rel, p)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, 0, err
	}
	return data, max(fi.Size(), int64(len(data))), nil
}

// SameContent reports whether the regular file at rel holds exactly
// data. It compares the size first and then reads the file in chunks, so
// it never holds the file in memory: a write of a few bytes over a 3 GiB
// file costs a stat.
func (r *Root) SameContent(rel string, data []byte) (bool, error) {
	p, err := r.resolve(rel, false)
	if err != nil {
		return false, err
	}
	f, fi, err := r.openRegular(rel, p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi.Size() != int64(len(data)) {
		return false, nil
	}
	buf := make([]byte, min(len(data)+1, 1<<20))
	for {
		n, err := f.Read(buf)
		if n > len(data) || !bytes.Equal(buf[:n], data[:n]) {
			return false, nil
		}
		data = data[n:]
		if errors.Is(err, io.EOF) {
			return len(data) == 0, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// ErrNotRegular is wrapped by the error of a read or an edit of
// something that is neither a regular file nor a folder: a FIFO, a
// socket, a device. Opening a FIFO to read it would wait for a writer
// that never comes.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens the resolved path p (rel as given) for reading
// without waiting, and returns it only if it is a regular file: O_NONBLOCK
// makes the open of a FIFO return at once, and the check is made on the
// open file, so a name swapped after a check cannot slip past it. A
// folder gives an error wrapping syscall.EISDIR.
func (r *Root) openRegular(rel, p string) (*os.File, fs.FileInfo, error) {
	f, err := r.root.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case fi.IsDir():
		err = &fs.PathError{Op: "read", Path: rel, Err: syscall.EISDIR}
	case !fi.Mode().IsRegular():
		err = &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w (%v)", ErrNotRegular, fi.Mode().Type())}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Resolve returns the workspace-relative, slash-separated path that rel
// names once its symlinks are followed inside the workspace: the file a
// write to rel would change. A path that leaves the workspace or enters
// the state folder is refused as every access is.
func (r *Root) Resolve(rel string) (string, error) {
	p, err := r.resolve(rel, false)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(p), nil
}

// Stat describes the file at rel, following symlinks inside the
// workspace.
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	p, err := r.resolve(rel, false)
	if err != nil {
		return nil, err
	}
	return r.root.Stat(p)
}

// Lstat describes the file at rel without following a final symlink.
func (r *Root) Lstat(rel string) (fs.FileInfo, error) {
	p, err := r.resolve(rel, true)
	if err != nil {
		return nil, err
	}
	return r.root.Lstat(p)
}

// ReadDir lists the directory at rel, sorted by name. The state folder is
// never listed.
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	p, err := r.resolve(rel, false)
	if err != nil {
		return nil, err
	}
	f, err := r.root.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	if p == "." {
		entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool {
			return strings.EqualFold(e.Name(), StateDirName)
		})
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}
