package verify

import (
	"context"
	"os"
	"path/filepath"
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
