package workspace

import (
	"io"
	"io/fs"
	"slices"
	"strings"
	"syscall"
)

// ReadFile returns the content of the file at rel.
func (r *Root) ReadFile(rel string) ([]byte, error) {
	p, err := r.resolve(rel, false)
	if err != nil {
		return nil, err
	}
	return r.root.ReadFile(p)
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
	f, err := r.root.Open(p)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if fi.IsDir() {
		return nil, 0, &fs.PathError{Op: "read", Path: rel, Err: syscall.EISDIR}
	}
	data, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, 0, err
	}
	return data, max(fi.Size(), int64(len(data))), nil
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
