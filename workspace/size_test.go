package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 25: a write over a huge file compared its content by reading it
// whole. SameContent compares the size first, then reads in chunks.
func TestSameContentComparesWithoutReadingTheFileWhole(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	text := strings.Repeat("line\n", 500_000) // 2.5 MB: more than one chunk
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte(text), 0o644)
	os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644)
	f, _ := os.Create(filepath.Join(dir, "big"))
	if err := f.Truncate(8 << 30); err != nil {
		t.Skip(err)
	}
	f.Close()
	for _, c := range []struct {
		path, data string
		want       bool
	}{
		{"a.txt", text, true},
		{"a.txt", text[:len(text)-1] + "X", false},
		{"a.txt", "X" + text[1:], false},
		{"a.txt", text + "\n", false},
		{"empty", "", true},
		{"empty", "x", false},
		{"big", "tiny", false},
	} {
		got, err := r.SameContent(c.path, []byte(c.data))
		if err != nil || got != c.want {
			t.Errorf("SameContent(%s, %d bytes) = %v, %v; want %v", c.path, len(c.data), got, err, c.want)
		}
	}
	_, err = r.EditLimited("big", 1<<20, func(b []byte) ([]byte, error) { return b, nil })
	var big *TooBigError
	if !errors.As(err, &big) || !errors.Is(err, ErrTooBig) || big.Size != 8<<30 {
		t.Errorf("EditLimited of an 8 GiB file: %v, want a TooBigError", err)
	}
}
