package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Kinds of path state.
const (
	absent  = "absent"
	file    = "file"
	dir     = "dir"
	symlink = "symlink"
	other   = "other" // a socket, a device: noticed, never copied
)

// state is what a path was at one moment: enough to compare and, with its
// blob, to put back.
type state struct {
	Kind string `json:"kind"`
	// Mode holds the permission bits (and setuid, setgid, sticky).
	Mode fs.FileMode `json:"mode,omitempty"`
	// Hash is the SHA-256 of a file's content, hex; it names the blob.
	Hash string `json:"hash,omitempty"`
	Size int64  `json:"size,omitempty"`
	// Target is a symlink's target.
	Target string `json:"target,omitempty"`
	// Pack and Off say where a prior content is saved: Size bytes at Off
	// in the pack file Pack of the journal's blobs folder.
	Pack string `json:"pack,omitempty"`
	Off  int64  `json:"off,omitempty"`
	// links is a file's hard-link count when it was read: a file with
	// others is replaced, never changed in place, so that a rollback
	// cannot reach a file outside the workspace through a link.
	links uint64
}

// same reports whether s and o are the same state of a path.
func (s state) same(o state) bool {
	return s.Kind == o.Kind && s.Mode == o.Mode && s.Hash == o.Hash && s.Target == o.Target
}

func (s state) String() string {
	switch s.Kind {
	case file:
		return fmt.Sprintf("file %s %d bytes", s.Mode, s.Size)
	case dir:
		return "directory " + s.Mode.String()
	case symlink:
		return "symlink to " + s.Target
	}
	return s.Kind
}

const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// stat reads the state of rel in root. For a file, it also hashes the
// content; when save is not nil, the content is also copied to it as it
// is read, so that the hash and the copy are of the same bytes.
func stat(root *os.Root, rel string, save io.Writer) (state, error) {
	info, err := root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return state{Kind: absent}, nil
	}
	if err != nil {
		return state{}, err
	}
	mode := info.Mode() & modeBits
	switch {
	case info.Mode().IsRegular():
		f, err := root.Open(rel)
		if err != nil {
			return state{}, err
		}
		defer f.Close()
		h := sha256.New()
		w := io.Writer(h)
		if save != nil {
			w = io.MultiWriter(h, save)
		}
		n, err := io.Copy(w, f)
		if err != nil {
			return state{}, err
		}
		return state{Kind: file, Mode: mode, Hash: hex.EncodeToString(h.Sum(nil)), Size: n, links: linkCount(info)}, nil
	case info.IsDir():
		return state{Kind: dir, Mode: mode}, nil
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := root.Readlink(rel)
		if err != nil {
			return state{}, err
		}
		return state{Kind: symlink, Target: target}, nil
	}
	return state{Kind: other, Mode: mode}, nil
}

// linkCount returns a file's number of hard links; 1 when unknown.
func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// view reads the states of paths in a workspace whose folders may have
// been replaced (by a command) with symlinks or files: a path below
// anything but a real folder does not exist as far as the journal is
// concerned, so it reads as absent instead of being followed out of the
// workspace (os.Root would refuse with "path escapes from parent").
type view struct {
	root *os.Root
	dirs map[string]bool // real folders seen, by path
}

func newView(root *os.Root) *view { return &view{root: root, dirs: map[string]bool{".": true}} }

// stat is stat with every parent folder checked first.
func (t *view) stat(rel string, save io.Writer) (state, error) {
	if !t.isDir(filepath.Dir(rel)) {
		return state{Kind: absent}, nil
	}
	return stat(t.root, rel, save)
}

// isDir reports whether d and every folder above it are real folders,
// not symlinks.
func (t *view) isDir(d string) bool {
	if ok, seen := t.dirs[d]; seen {
		return ok
	}
	ok := t.isDir(filepath.Dir(d))
	if ok {
		info, err := t.root.Lstat(d)
		ok = err == nil && info.IsDir()
	}
	t.dirs[d] = ok
	return ok
}
