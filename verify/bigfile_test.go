package verify

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Issue 25 (the trust review): a command's `truncate -s 1T big` made the
// judge read the whole terabyte to show it (fs.ReadFile makes a buffer
// of the file's size): the run was killed for want of memory after
// minutes, its journal left pending. The judge reads at most its budget
// of a file, and a rule or the claims check at most MaxRuleFileBytes.
func TestAHugeSparseFileIsNeverReadWhole(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big"))
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 40
	if err := f.Truncate(size); err != nil {
		f.Close()
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(dir, "small.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := Input{Dir: dir, Changed: []string{"big", "small.md"}}

	got := readChanged(in, 1000)
	if got[0].shown != "(binary file, 1099511627776 bytes, not shown)" || len(got[0].data) > 1000 {
		t.Errorf("big shown as %q with %d bytes read", got[0].shown, len(got[0].data))
	}
	if got[1].shown != "# notes\n" {
		t.Errorf("small.md shown as %q", got[1].shown)
	}

	r, err := ParseRule("min-chars:big:10", "")
	if err != nil {
		t.Fatal(err)
	}
	if fail := r.Check(context.Background(), in); fail == nil || !strings.Contains(fail.Message, "too large to read") {
		t.Errorf("min-chars on a terabyte: %+v, want a failure saying it is too large to read", fail)
	}
}

// Issue 25 (the trust review): a command that made 100,000 empty files
// gave the judge a prompt of 2.6 million tokens, one section per file:
// past any model's window, or paid for. The judge is shown at most
// MaxJudgeFiles of them, and told how many more there are.
func TestTheJudgeIsShownABoundedNumberOfFiles(t *testing.T) {
	dir := t.TempDir()
	var changed []string
	for i := range MaxJudgeFiles + 700 {
		name := filepath.Join("d", strconv.Itoa(i))
		changed = append(changed, name)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range changed {
		if err := os.WriteFile(filepath.Join(dir, c), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	user := prompt{nonce: "N", budget: 1000}.user(Input{Task: "t", Answer: "a", Dir: dir, Changed: changed}, nil)
	if n := strings.Count(user, "<file-N "); n != MaxJudgeFiles {
		t.Errorf("%d file sections, want %d", n, MaxJudgeFiles)
	}
	if !strings.Contains(user, "The run changed 700 more files, not shown here") {
		t.Errorf("the prompt does not say how many files it leaves out:\n%s", user[len(user)-600:])
	}
	if len(user) > 100_000 {
		t.Errorf("the prompt is %d bytes", len(user))
	}
}
