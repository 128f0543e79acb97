package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/nightshift-dev/nightshift/statedir"
)

// Dir is a Store in a folder of nightshift's state directory: the notes
// are JSON lines in notes.jsonl, appended, private, and never reached
// through a symlink. `nightshift run --memory` keeps a workspace's in
// statedir.MemoryName of the workspace's state folder.
type Dir string

var _ Store = Dir("")

// notesName is the file of a Dir's notes.
const notesName = "notes.jsonl"

// mu serializes a process's appends; O_APPEND keeps separate processes'
// lines whole.
var mu sync.Mutex

// Add appends n to the folder's notes, making the folder if need be.
func (d Dir) Add(_ context.Context, n Note) error {
	line, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if err := statedir.MkdirPrivate(string(d)); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	f, err := statedir.OpenFile(filepath.Join(string(d), notesName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// Notes reads the folder's notes, oldest first; a folder without notes
// has none. A line that does not parse (a write cut by a crash) is
// skipped.
func (d Dir) Notes(context.Context) ([]Note, error) {
	data, err := statedir.ReadFile(filepath.Join(string(d), notesName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	var out []Note
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		var n Note
		if json.Unmarshal(sc.Bytes(), &n) == nil && n.Text != "" {
			out = append(out, n)
		}
	}
	return out, sc.Err()
}
