package lifecycle_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/statedir"
)

const leakedKey = "sk-ant-api03-checkpoint-0123456789"

// writesTheKey: the model writes the key into a file and a note (it read
// it somewhere) and reads a long file that holds it, then would go on;
// the budget pauses it after the first call.
const writesTheKey = `
turns:
  - text: "The key is ` + leakedKey + `."
    tool_calls:
      - {name: write_file, input: {path: k.md, content: "key: ` + leakedKey + `\n"}}
      - {name: remember, input: {note: "the key is ` + leakedKey + `"}}
      - {name: read_file, input: {path: env.txt}}
    usage: {input: 2000, output: 200}
  - {text: "Done.", usage: {input: 2000, output: 200}}
`

// Regression: the checkpoint log of a paused run kept the conversation as
// it was, the model's text and its tool calls' inputs with a key in them
// included, and the memory kept the model's note as it was; only the
// events, the record and the audit log were redacted.
func TestAPausedRunKeepsNoCredentialInItsState(t *testing.T) {
	f := setup(t, writesTheKey)
	f.cfg.Spec.BudgetTokens = 3000
	f.cfg.Redact = redact.New(leakedKey)
	f.cfg.Memory = &lifecycle.Memory{}
	// A result longer than the cap is kept in the checkpoint's results.
	f.cfg.ResultCap = 200
	if err := os.WriteFile(filepath.Join(f.dir, "env.txt"), []byte(strings.Repeat("#\n", 200)+"KEY="+leakedKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := f.run(t)
	if res.Outcome != agent.Budget {
		t.Fatalf("outcome %s (%s), want budget", res.Outcome, res.Reason)
	}
	f.paused(t, res)
	if got := f.read(t, "k.md"); got != "key: "+leakedKey+"\n" {
		t.Fatalf("k.md = %q: the workspace is the run's, never redacted", got)
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(res.StateDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(res.StateDir, p)
		seen[strings.SplitN(rel, string(filepath.Separator), 2)[0]] = true
		if strings.Contains(rel, string(filepath.Separator)+"results"+string(filepath.Separator)) {
			seen["results"] = true
		}
		if strings.Contains(string(b), leakedKey) {
			t.Errorf("%s holds the key:\n%s", rel, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"checkpoints", "runs", "audit.jsonl", statedir.MemoryName, "results"} {
		if !seen[want] {
			t.Errorf("no %s in the state folder (%v): the test looked at less than it should", want, seen)
		}
	}

	t.Run("resumed, it goes on from the redacted conversation", func(t *testing.T) {
		f.cfg.Spec.BudgetUSD, f.cfg.Spec.BudgetTokens = 0, 0
		res2 := f.resume(t, f.model(t, writesTheKey), res.RunID)
		if res2.Outcome != agent.Done {
			t.Fatalf("outcome %s (%s), want done", res2.Outcome, res2.Reason)
		}
	})
}
