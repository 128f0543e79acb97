package fs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// benchSet is a workspace with one small file three folders deep.
func benchSet(b *testing.B) *tool.Set {
	b.Helper()
	dir := b.TempDir()
	p := filepath.Join(dir, "a", "b", "c", "notes.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	set, err := tool.NewSet(Tools(r)...)
	if err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkReadFile is the whole path of a read: schema check, confined
// resolution of every component, the read itself.
func BenchmarkReadFile(b *testing.B) {
	set := benchSet(b)
	in := json.RawMessage(`{"path":"a/b/c/notes.md"}`)
	for b.Loop() {
		if res := set.Call(b.Context(), "read_file", in); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

// BenchmarkWriteFileUnchanged is the cost of a repeated, idempotent write.
func BenchmarkWriteFileUnchanged(b *testing.B) {
	set := benchSet(b)
	in := json.RawMessage(`{"path":"a/b/c/notes.md","content":"one\ntwo\nthree\n"}`)
	for b.Loop() {
		if res := set.Call(b.Context(), "write_file", in); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

// BenchmarkEditFile alternates two edits, so each call really writes.
func BenchmarkEditFile(b *testing.B) {
	set := benchSet(b)
	ins := []json.RawMessage{
		json.RawMessage(`{"path":"a/b/c/notes.md","old":"two","new":"2"}`),
		json.RawMessage(`{"path":"a/b/c/notes.md","old":"2","new":"two"}`),
	}
	i := 0
	for b.Loop() {
		if res := set.Call(b.Context(), "edit_file", ins[i%2]); res.IsError {
			b.Fatal(res.Content)
		}
		i++
	}
}
