package breaker

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/nightshift-dev/nightshift/internal/flock"
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
	f, err := flock.OpenShared(dir, FileName(endpoint, credential), "breaker: ")
	if err != nil {
		return nil, err
	}
	b.file = f
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
	err := b.file.Close()
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
	return b.file.Err()
}

// fileState is the file's format: the state and its version.
type fileState struct {
	Version int `json:"version"`
	state
}

// load replaces st with the file's state. An empty file is a closed
// breaker; an unreadable or other-version one leaves st as it is (this
// process's last knowledge), and the next save overwrites it.
func load(f *flock.Shared, st *state) {
	var fs fileState
	empty, ok := f.Load(&fs, 1<<16)
	switch {
	case empty:
		*st = state{}
	case ok && fs.Version == fileVersion:
		*st = fs.state
	}
}

func save(f *flock.Shared, st *state) {
	f.Save(fileState{Version: fileVersion, state: *st})
}
