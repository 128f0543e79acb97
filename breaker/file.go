package breaker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/internal/flock"
	"github.com/nightshift-dev/nightshift/statedir"
)

// fileVersion is the format of the shared file; a file of another
// version is read as closed and overwritten.
const fileVersion = 1

// FileName is the name of the file in which the breakers of one endpoint
// and credential share their state: "breaker-", the first 32 hex digits
// of a SHA-256 over both, and ".json". Neither can be read back from it.
// It lies beside the limiter's file of the same endpoint (package retry)
// and, like it, is removed once unwritten for a day.
func FileName(endpoint, credential string) string {
	sum := sha256.Sum256([]byte("nightshift breaker\x00" + endpoint + "\x00" + credential))
	return "breaker-" + hex.EncodeToString(sum[:16]) + ".json"
}

// Share returns the breaker of one endpoint and credential that the
// processes of the machine share through a file in dir (created, mode
// 0700, when missing; a symlink there or in the file's place is
// refused), named FileName(endpoint, credential). Every Admit and Record
// reads and writes it under an exclusive file lock (flock), which the
// system releases when a process dies; a probe whose process died is
// taken over by the next caller. With dir empty, it is New(cfg, host).
//
// It fails where files cannot be locked; the caller may then keep the
// breaker in its process with New.
func Share(cfg Config, host, dir, endpoint, credential string) (*Breaker, error) {
	b := New(cfg, host)
	if dir == "" {
		return b, nil
	}
	if err := statedir.MkdirPrivate(dir); err != nil {
		return nil, fmt.Errorf("breaker: folder: %w", err)
	}
	f, err := statedir.OpenFile(filepath.Join(dir, FileName(endpoint, credential)), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("breaker: file: %w", err)
	}
	if err := flock.Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("breaker: file %s: cannot lock it: %w", f.Name(), err)
	}
	flock.Unlock(f) //nolint:errcheck // closing would release it too
	b.file = &sharedFile{f: f}
	return b, nil
}

// Close stops sharing: the breaker goes on in this process from what it
// knew last. It returns the first error met while sharing, or the error
// of closing the file.
func (b *Breaker) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.file == nil {
		return nil
	}
	err := b.file.err
	if cerr := b.file.f.Close(); err == nil {
		err = cerr
	}
	b.file = nil
	return err
}

// Err returns the first error met while sharing the breaker's file, or
// nil.
func (b *Breaker) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.file == nil {
		return nil
	}
	return b.file.err
}

// sharedFile is the shared state's file, open for the life of the
// breaker.
type sharedFile struct {
	f   *os.File
	buf bytes.Buffer
	err error
}

func (sf *sharedFile) fail(err error) {
	if sf.err == nil {
		sf.err = fmt.Errorf("breaker: file %s: %w", sf.f.Name(), err)
	}
}

func (sf *sharedFile) lock() bool {
	if err := flock.Lock(sf.f); err != nil {
		sf.fail(err)
		return false
	}
	return true
}

func (sf *sharedFile) unlock() {
	if err := flock.Unlock(sf.f); err != nil {
		sf.fail(err)
	}
}

// fileState is the file's format: the state and its version.
type fileState struct {
	Version int `json:"version"`
	state
}

// load replaces st with the file's state. An empty file is a closed
// breaker; an unreadable or other-version one leaves st as it is (this
// process's last knowledge), and the next save overwrites it.
func (sf *sharedFile) load(st *state) {
	sf.buf.Reset()
	if _, err := sf.buf.ReadFrom(io.NewSectionReader(sf.f, 0, 1<<16)); err != nil {
		sf.fail(err)
		return
	}
	if sf.buf.Len() == 0 {
		*st = state{}
		return
	}
	var fs fileState
	// The first JSON value only: a write cut short may leave the end of
	// a longer state behind it.
	if err := json.NewDecoder(&sf.buf).Decode(&fs); err != nil || fs.Version != fileVersion {
		return
	}
	*st = fs.state
}

func (sf *sharedFile) save(st *state) {
	b, err := json.Marshal(fileState{Version: fileVersion, state: *st})
	if err != nil {
		sf.fail(err)
		return
	}
	b = append(b, '\n')
	if _, err := sf.f.WriteAt(b, 0); err != nil {
		sf.fail(err)
		return
	}
	if err := sf.f.Truncate(int64(len(b))); err != nil {
		sf.fail(err)
	}
}
