package flock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/statedir"
)

// Shared is a small state file that the processes of a machine share:
// each reads it, changes it and writes it back under its lock. It keeps
// the first error it meets (Err) and goes on: a caller whose file fails
// keeps its own process's state. It is not safe for concurrent use; its
// owner holds its own mutex around Lock ... Unlock.
type Shared struct {
	f      *os.File
	prefix string
	buf    bytes.Buffer
	err    error
}

// OpenShared opens, creating it when missing, the file name in dir
// (dir created with mode 0700; a symlink there or in the file's place is
// refused, as for every state file), and checks that it can be locked.
// prefix starts its errors ("retry: limiter ", "breaker: ").
func OpenShared(dir, name, prefix string) (*Shared, error) {
	if err := statedir.MkdirPrivate(dir); err != nil {
		return nil, fmt.Errorf("%sfolder: %w", prefix, err)
	}
	f, err := statedir.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%sfile: %w", prefix, err)
	}
	if err := Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%sfile %s: cannot lock it: %w", prefix, f.Name(), err)
	}
	Unlock(f) //nolint:errcheck // closing would release it too
	return &Shared{f: f, prefix: prefix}, nil
}

func (s *Shared) fail(err error) {
	if s.err == nil {
		s.err = fmt.Errorf("%sfile %s: %w", s.prefix, s.f.Name(), err)
	}
}

// Lock takes the file's lock, reporting whether it did.
func (s *Shared) Lock() bool {
	if err := Lock(s.f); err != nil {
		s.fail(err)
		return false
	}
	return true
}

// Unlock releases the file's lock.
func (s *Shared) Unlock() {
	if err := Unlock(s.f); err != nil {
		s.fail(err)
	}
}

// Load decodes into v the file's first JSON value, reading at most max
// bytes: only the first, since a write cut short (a power loss) may
// leave the end of an older, longer state behind it. empty is true for
// an empty file; ok is false for one that could not be read or decoded,
// which its owner takes as its own last knowledge, and the next Save
// overwrites.
func (s *Shared) Load(v any, max int64) (empty, ok bool) {
	s.buf.Reset()
	if _, err := s.buf.ReadFrom(io.NewSectionReader(s.f, 0, max)); err != nil {
		s.fail(err)
		return false, false
	}
	if s.buf.Len() == 0 {
		return true, false
	}
	return false, json.NewDecoder(&s.buf).Decode(v) == nil
}

// Save writes v, as one line of JSON, over the file's content.
func (s *Shared) Save(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.fail(err)
		return
	}
	b = append(b, '\n')
	if _, err := s.f.WriteAt(b, 0); err != nil {
		s.fail(err)
		return
	}
	if err := s.f.Truncate(int64(len(b))); err != nil {
		s.fail(err)
	}
}

// Err returns the first error met while sharing the file (a lock, a
// read or a write that failed), or nil.
func (s *Shared) Err() error { return s.err }

// Close closes the file, and returns the first error met while sharing
// it or the error of closing it.
func (s *Shared) Close() error {
	err := s.err
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
