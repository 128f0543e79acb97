package claims

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/verify"
)

// run is one worker's result for the check: the workspace's files, the
// paths the run changed (nil: every file given), its commands.
type run struct {
	task    string
	files   map[string]string
	changed []string
	ran     []verify.Ran
}

// setup writes r's files into a fresh workspace and returns the check's
// input for answer.
func setup(t testing.TB, r run, answer string) verify.Input {
	t.Helper()
	dir := t.TempDir()
	var all []string
	for p, content := range r.files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	changed := r.changed
	if changed == nil {
		changed = all
	}
	ran := r.ran
	if ran == nil {
		ran = []verify.Ran{}
	}
	return verify.Input{Task: r.task, Answer: answer, Dir: dir, Files: os.DirFS(dir), Changed: changed, Ran: ran}
}

// claimsOf runs the check with the default config.
func claimsOf(t testing.TB, r run, answer string) []verify.Claim {
	t.Helper()
	return New(Config{}).Claims(context.Background(), setup(t, r, answer))
}
