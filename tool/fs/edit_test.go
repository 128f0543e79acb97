package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/tool"
)

func TestEditFile(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		old, new string
		want     tool.Result
		after    string // the file afterwards
	}{
		{
			name: "the one occurrence is replaced", content: "one\ntwo\nthree\n", old: "two", new: "2",
			want: tool.OK("edited f.txt at line 2"), after: "one\n2\nthree\n",
		},
		{
			name: "text that is not there is an error that says so", content: "one\n", old: "four", new: "4",
			want:  tool.Error("old was not found in f.txt; read_file it again and copy the text exactly, including whitespace and line breaks"),
			after: "one\n",
		},
		{
			name: "text that differs only in line endings says so", content: "one\r\ntwo\r\n", old: "one\ntwo", new: "1\n2",
			want:  tool.Error(`old was not found in f.txt (the file has Windows line endings, \r\n, and old has \n); read_file it again and copy the text exactly, including whitespace and line breaks`),
			after: "one\r\ntwo\r\n",
		},
		{
			name: "text that differs only in surrounding whitespace says so", content: "  indented\n", old: "indented\n\n", new: "x",
			want:  tool.Error("old was not found in f.txt (it is there without the leading or trailing whitespace of old); read_file it again and copy the text exactly, including whitespace and line breaks"),
			after: "  indented\n",
		},
		{
			name: "text that occurs twice asks for more context", content: "x = 1\nx = 1\n", old: "x = 1", new: "x = 2",
			want:  tool.Error("old occurs 2 times in f.txt; include more of the surrounding text so that it matches exactly once"),
			after: "x = 1\nx = 1\n",
		},
		{
			name: "an edit already made is reported and changes nothing", content: "one\n2\nthree\n", old: "two", new: "2",
			want:  tool.OK("already applied: f.txt contains the new text and not the old; nothing changed"),
			after: "one\n2\nthree\n",
		},
		{
			name: "an edit that keeps the old text inside the new is not made twice", content: "a\nb and c\n", old: "b", new: "b and c",
			want:  tool.OK("already applied: f.txt contains the new text and not the old; nothing changed"),
			after: "a\nb and c\n",
		},
		{
			name: "an edit that keeps the old text inside the new is made once", content: "a\nb\n", old: "b", new: "b and c",
			want: tool.OK("edited f.txt at line 2"), after: "a\nb and c\n",
		},
		{
			name: "an occurrence outside the new text is still found", content: "b and c\nb\n", old: "b\n", new: "b and c\n",
			want: tool.OK("edited f.txt at line 2"), after: "b and c\nb and c\n",
		},
		{
			name: "a deletion is made", content: "keep\ndrop\n", old: "drop\n", new: "",
			want: tool.OK("edited f.txt at line 2"), after: "keep\n",
		},
		{
			name: "old equal to new is an error", content: "a\n", old: "a", new: "a",
			want: tool.Error("edit_file: old and new are the same; there is nothing to change"), after: "a\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t)
			p := filepath.Join(f.dir, "f.txt")
			write(t, p, tt.content)
			got := f.call(t, "edit_file", in{"path": "f.txt", "old": tt.old, "new": tt.new})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.after, read(t, p)); diff != "" {
				t.Errorf("file (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEditFileRefusesAnEmptyOld(t *testing.T) {
	f := setup(t)
	got := f.call(t, "edit_file", in{"path": "README.md", "old": "", "new": "b"})
	if !got.IsError || !strings.Contains(got.Content, "/properties/old: minLength") {
		t.Errorf("result %+v, want the validator's complaint about old", got)
	}
	// Called directly, past the Set's schema check, the tool says it in
	// its own words.
	got = NewEditFile(f.root).Run(t.Context(), []byte(`{"path":"README.md","old":"","new":"b"}`))
	want := tool.Error("edit_file: old is empty; give the exact text to replace (to create a file, use write_file)")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestEditFileTwiceIsTheSameAsOnce(t *testing.T) {
	f := setup(t)
	edit := in{"path": "docs/guide.md", "old": "two\n", "new": "two\ntwo and a half\n"}
	first := f.call(t, "edit_file", edit)
	second := f.call(t, "edit_file", edit)
	want := []tool.Result{
		tool.OK("edited docs/guide.md at line 2"),
		tool.OK("already applied: docs/guide.md contains the new text and not the old; nothing changed"),
	}
	if diff := cmp.Diff(want, []tool.Result{first, second}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := read(t, filepath.Join(f.dir, "docs", "guide.md")); got != "one\ntwo\ntwo and a half\nthree\n" {
		t.Errorf("content = %q", got)
	}
}

func TestEditFileFailures(t *testing.T) {
	f := setup(t)
	tests := []struct {
		name, path string
		want       tool.Result
	}{
		{"a missing file says so", "docs/x.md", tool.Error("no such file: docs/x.md")},
		{"a directory points to list_dir", "docs", tool.Error("docs is a directory, not a file; use list_dir to see what it holds")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := f.call(t, "edit_file", in{"path": tt.path, "old": "a", "new": "b"})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestEditFileKeepsTheMode(t *testing.T) {
	f := setup(t)
	p := filepath.Join(f.dir, "run.sh")
	write(t, p, "#!/bin/sh\necho one\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := f.call(t, "edit_file", in{"path": "run.sh", "old": "one", "new": "two"}); got.IsError {
		t.Fatal(got.Content)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want -rwxr-xr-x", fi.Mode().Perm())
	}
}

func TestConcurrentCallsLoseNoEdit(t *testing.T) {
	f := setup(t)
	const n = 30
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("todo %02d", i))
	}
	write(t, filepath.Join(f.dir, "list.txt"), strings.Join(lines, "\n")+"\n")
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			edit := in{"path": "list.txt", "old": fmt.Sprintf("todo %02d\n", i), "new": fmt.Sprintf("done %02d\n", i)}
			if got := f.call(t, "edit_file", edit); got.IsError {
				t.Errorf("edit %d: %s", i, got.Content)
			}
		})
		wg.Go(func() {
			if got := f.call(t, "read_file", in{"path": "list.txt"}); got.IsError {
				t.Errorf("read %d: %s", i, got.Content)
			}
		})
		wg.Go(func() {
			if got := f.call(t, "write_file", in{"path": fmt.Sprintf("out/%02d.txt", i), "content": "x"}); got.IsError {
				t.Errorf("write %d: %s", i, got.Content)
			}
		})
	}
	wg.Wait()
	got := read(t, filepath.Join(f.dir, "list.txt"))
	if strings.Contains(got, "todo") || strings.Count(got, "done") != n {
		t.Errorf("lost edits:\n%s", got)
	}
	if c := len(f.root.Changed()); c != n+1 {
		t.Errorf("Changed() has %d paths, want %d", c, n+1)
	}
}
