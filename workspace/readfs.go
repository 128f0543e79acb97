package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// ErrTooLarge is matched by the error of ReadFileAtMost for a file larger
// than its limit (a *TooLargeError says how large).
var ErrTooLarge = errors.New("file too large to read")

// TooLargeError says how large a file was, and the limit it passed.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, more than the %d read", e.Size, e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// ReadFileAtMost reads the file name of fsys, as fs.ReadFile does, but
// refuses one larger than limit bytes with a *TooLargeError instead of
// reading it: a command can leave a file of any size in the workspace
// (`truncate -s 1T big` costs it nothing), and fs.ReadFile would make a
// buffer of its size. A file that grows past the limit while it is read
// is refused too.
func ReadFileAtMost(fsys fs.FS, name string, limit int64) ([]byte, error) {
	data, size, err := ReadHeadFS(fsys, name, limit)
	if err != nil {
		return nil, err
	}
	if size > limit || int64(len(data)) > limit {
		return nil, &TooLargeError{Size: max(size, int64(len(data))), Limit: limit}
	}
	return data, nil
}

// ReadHeadFS returns the first n bytes (at most) of the file name of
// fsys and the file's size as it was opened: what a reader that shows a
// file's beginning needs, whatever its size. It reads one byte past n,
// to tell a file that grew from one that did not.
func ReadHeadFS(fsys fs.FS, name string, n int64) ([]byte, int64, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if fi.IsDir() {
		return nil, 0, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	data, err := io.ReadAll(io.LimitReader(f, n+1))
	if err != nil {
		return nil, 0, err
	}
	size := fi.Size()
	if int64(len(data)) > n {
		size = max(size, int64(len(data)))
		data = data[:n]
	}
	return data, size, nil
}
