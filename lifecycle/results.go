package lifecycle

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/statedir"
)

// resultsName is the folder of a run's checkpoint that keeps the tool
// results cut in its history.
const resultsName = "results"

// resultStore keeps a run's cut tool results (agent.ResultStore) in its
// checkpoint folder, StateDir/checkpoints/<run>/results/<tool-use id>:
// outside the workspace, kept as long as the run can be resumed, and gone
// with its checkpoint when the run ends for good.
type resultStore struct{ dir string }

var _ agent.ResultStore = resultStore{}

// plainID is a tool-use ID that can name a file as it is; any other is
// hex-encoded.
var plainID = lazyregexp.New(`^[A-Za-z0-9_-]{1,128}$`)

func (s resultStore) path(id string) string {
	if !plainID.MatchString(id) {
		id = "x" + hex.EncodeToString([]byte(id))
	}
	return filepath.Join(s.dir, id)
}

// Put keeps content, synced, under id.
func (s resultStore) Put(id, content string) error {
	if err := statedir.MkdirPrivate(s.dir); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := statedir.WriteFile(s.path(id), []byte(content)); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// Get returns what Put kept under id.
func (s resultStore) Get(id string) (string, error) {
	b, err := statedir.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return "", agent.ErrNoResult
	}
	if err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	return string(b), nil
}
