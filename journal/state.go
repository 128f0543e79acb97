package journal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	// Packed is how many bytes of the pack a content saved in the
	// zero-run form takes (hash.go); 0 for one saved as its bytes, which
	// take Size.
	Packed int64 `json:"packed,omitempty"`
	// TargetBytes holds a Target that is not valid UTF-8, which JSON
	// would mangle (encoding.go).
	TargetBytes []byte `json:"target_bytes,omitempty"`
	// links is a file's hard-link count when it was read: a file with
	// others is replaced, never changed in place, so that a rollback
	// cannot reach a file outside the workspace through a link.
	links uint64
}

// saved is how many bytes of its pack a saved content takes.
func (s state) saved() int64 {
	if s.Packed > 0 {
		return s.Packed
	}
	return s.Size
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

// view reads the states of paths in a workspace whose folders may have
// been replaced (by a command) with symlinks or files: a path below
// anything but a real folder does not exist as far as the journal is
// concerned, so it reads as absent instead of being followed out of the
// workspace. It reads through a cursor (one open folder per level, so a
// deep path costs one system call, not one per level above it), looks at
// ctx while it hashes, and takes a file's state from cache when the file
// is, by its stat, the one hashed before.
type view struct {
	ctx   context.Context
	cur   *cursor
	cache *statCache
	// plain hashes every file as its plain SHA-256, as earlier versions
	// did, to compare with what their journals hold.
	plain bool
}

func newView(ctx context.Context, root *os.Root, cache *statCache) *view {
	return &view{ctx: ctx, cur: newCursor(root), cache: cache}
}

// close releases the folders the view holds open.
func (v *view) close() { v.cur.close() }

// stat reads the state of rel. For a file, it also hashes the content;
// when save is not nil, the saved form of the content is also written to
// it as it is read, so that the hash and the copy are of the same bytes
// (reset drops what was written, when the form changes midway).
func (v *view) stat(rel string, save io.Writer, reset func() error) (state, error) {
	d, name, err := v.cur.parent(rel)
	if err != nil {
		return state{}, err
	}
	if d == nil {
		return state{Kind: absent}, nil
	}
	return v.statAt(d, rel, name, nil, save, reset)
}

// isDir reports whether d and every folder above it are real folders,
// not symlinks.
func (v *view) isDir(d string) bool {
	dir, err := v.cur.dir(d)
	return err == nil && dir != nil
}

// statAt reads the state of the entry name of the open folder d, at rel in
// the workspace; info is its Lstat when the caller has it.
func (v *view) statAt(d *os.Root, rel, name string, info fs.FileInfo, save io.Writer, reset func() error) (state, error) {
	if info == nil {
		var err error
		info, err = d.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return state{Kind: absent}, nil
		}
		if err != nil {
			return state{}, err
		}
	}
	mode := info.Mode() & modeBits
	switch {
	case info.Mode().IsRegular():
		if save == nil {
			if st, ok := v.cache.get(rel, info); ok {
				return st, nil
			}
		}
		// O_NONBLOCK: a FIFO swapped in since the Lstat must not hang
		// the journal; the open file is checked below.
		f, err := d.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
		if errors.Is(err, fs.ErrNotExist) {
			return state{Kind: absent}, nil
		}
		if err != nil {
			return state{}, err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return state{}, err
		}
		if !fi.Mode().IsRegular() {
			return state{Kind: other, Mode: fi.Mode() & modeBits}, nil
		}
		if v.cache != nil {
			v.cache.reads++
		}
		h, err := hashFile(v.ctx, f, fi.Size(), save, reset, v.plain)
		if err != nil {
			return state{}, err
		}
		st := state{Kind: file, Mode: fi.Mode() & modeBits, Hash: h.hash, Size: h.size, Packed: h.packed, links: linkCount(fi)}
		v.cache.put(rel, fi, st)
		return st, nil
	case info.IsDir():
		return state{Kind: dir, Mode: mode}, nil
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := d.Readlink(name)
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
