package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// sizeSetup is a workspace with a small and a big file, and the file
// tools over it with a limit of limit bytes (0: the default).
func sizeSetup(t *testing.T, limit int64, bigSize int64) (*tool.Set, string) {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "small.txt"), "small\n")
	f, err := os.Create(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(bigSize); err != nil {
		t.Skipf("no sparse file of %d bytes here: %v", bigSize, err)
	}
	f.Close()
	r, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	set, err := tool.NewSet(ToolsWith(r, Config{MaxFileSize: limit})...)
	if err != nil {
		t.Fatal(err)
	}
	return set, dir
}

func callTool(t *testing.T, set *tool.Set, name string, input map[string]string) tool.Result {
	t.Helper()
	in, _ := json.Marshal(input)
	return set.Call(t.Context(), name, in)
}

// Issue 25: write_file over a 3 GiB file read it whole to compare: the
// process ran out of memory and died with exit 2 ("usage"), leaving no
// record and a pending journal. The file tools have a size limit (256
// MiB by default) and answer past it with an error result; under it they
// compare by size first and stream.
func TestTheFileToolsRefuseAFilePastTheirLimitWithoutReadingIt(t *testing.T) {
	set, dir := sizeSetup(t, 0, 3<<30)
	for _, c := range []struct {
		tool  string
		input map[string]string
	}{
		{"write_file", map[string]string{"path": "big.bin", "content": "tiny\n"}},
		{"edit_file", map[string]string{"path": "big.bin", "old": "x", "new": "y"}},
		{"read_file", map[string]string{"path": "big.bin"}},
	} {
		res := callTool(t, set, c.tool, c.input)
		text := res.Content
		if !res.IsError || !strings.Contains(text, "3221225472 bytes") || !strings.Contains(text, "268435456 bytes") || !strings.Contains(text, "--max-file-size") {
			t.Errorf("%s over a 3 GiB file: is_error=%v %q; want an error naming its size, the limit and the flag", c.tool, res.IsError, text)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "big.bin")); err != nil || fi.Size() != 3<<30 {
		t.Errorf("big.bin changed: %v %v", fi, err)
	}
}

func TestTheFileSizeLimitIsConfigurable(t *testing.T) {
	set, dir := sizeSetup(t, 10, 11)
	res := callTool(t, set, "write_file", map[string]string{"path": "new.txt", "content": "eleven byte"})
	if !res.IsError || !strings.Contains(res.Content, "the content is 11 bytes") {
		t.Errorf("content past the limit: %+v", res)
	}
	res = callTool(t, set, "edit_file", map[string]string{"path": "small.txt", "old": "small", "new": "much bigger"})
	if !res.IsError || !strings.Contains(res.Content, "past the file tools' limit of 10 bytes") {
		t.Errorf("an edit that grows the file past the limit: %+v", res)
	}
	// Under the limit everything works, and an unchanged write is
	// noticed by comparing, not by reading the file whole.
	for _, c := range []struct {
		tool  string
		input map[string]string
		want  string
	}{
		{"write_file", map[string]string{"path": "small.txt", "content": "small\n"}, "unchanged"},
		{"write_file", map[string]string{"path": "small.txt", "content": "smaller\n"}, "wrote small.txt"},
		{"edit_file", map[string]string{"path": "small.txt", "old": "smaller", "new": "tiny"}, "edited small.txt"},
		{"read_file", map[string]string{"path": "small.txt"}, "tiny\n"},
	} {
		if res := callTool(t, set, c.tool, c.input); res.IsError || !strings.Contains(res.Content, c.want) {
			t.Errorf("%s %v: %+v, want %q", c.tool, c.input, res, c.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "small.txt")); string(b) != "tiny\n" {
		t.Errorf("small.txt = %q", b)
	}
}
