package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// FS returns a read-only file system of the workspace that keeps every
// rule of the Root: a name is resolved as ReadFile resolves it (a symlink
// that leads out, or into the state folder, gives an error wrapping
// ErrOutside or ErrStateDir), the state folder is never listed, and
// opening anything but a regular file or a folder (a FIFO, a socket, a
// device) fails at once with an error wrapping ErrNotRegular instead of
// waiting for a writer. The gate reads it to preview writes and edits,
// and the verifier's rules and judge read the files the run made
// through it. Errors are *fs.PathError, naming the path as given.
func (r *Root) FS() fs.FS { return rootFS{r} }

type rootFS struct{ r *Root }

var (
	_ fs.StatFS     = rootFS{}
	_ fs.ReadFileFS = rootFS{}
	_ fs.ReadDirFS  = rootFS{}
)

// valid checks name as io/fs requires: the Root's own checks come after.
func valid(op, name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

// asPathError makes err an *fs.PathError for name: the Root's refusals
// (*PathError) are wrapped so that errors.Is still finds their sentinel.
func asPathError(op, name string, err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return &fs.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// Open opens a regular file or a folder.
func (f rootFS) Open(name string) (fs.File, error) {
	if err := valid("open", name); err != nil {
		return nil, err
	}
	p, err := f.r.resolve(name, false)
	if err != nil {
		return nil, asPathError("open", name, err)
	}
	file, err := f.r.root.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, asPathError("open", name, err)
	}
	fi, err := file.Stat()
	if err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w (%v)", ErrNotRegular, fi.Mode().Type())
	}
	if err != nil {
		file.Close()
		return nil, asPathError("open", name, err)
	}
	return file, nil
}

// Stat describes the file at name, following symlinks inside the
// workspace.
func (f rootFS) Stat(name string) (fs.FileInfo, error) {
	if err := valid("stat", name); err != nil {
		return nil, err
	}
	fi, err := f.r.Stat(name)
	if err != nil {
		return nil, asPathError("stat", name, err)
	}
	return fi, nil
}

// ReadFile reads the regular file at name.
func (f rootFS) ReadFile(name string) ([]byte, error) {
	if err := valid("read", name); err != nil {
		return nil, err
	}
	data, err := f.r.ReadFile(name)
	if err != nil {
		return nil, asPathError("read", name, err)
	}
	return data, nil
}

// ReadDir lists the folder at name, sorted, without the state folder.
func (f rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := valid("readdir", name); err != nil {
		return nil, err
	}
	entries, err := f.r.ReadDir(name)
	if err != nil {
		return nil, asPathError("readdir", name, err)
	}
	return entries, nil
}
