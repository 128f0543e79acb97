package memory_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/memory"
	"github.com/nightshift-dev/nightshift/tool"
)

func TestADirKeepsNotesAcrossStores(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memory")
	ctx := context.Background()
	if notes, err := memory.Dir(dir).Notes(ctx); err != nil || len(notes) != 0 {
		t.Fatalf("a new folder: %v, %v", notes, err)
	}
	for _, text := range []string{"first", "second"} {
		if err := memory.Dir(dir).Add(ctx, memory.Note{Kind: memory.Remembered, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	notes, err := memory.Dir(dir).Notes(ctx)
	if err != nil || len(notes) != 2 || notes[0].Text != "first" || notes[1].Text != "second" {
		t.Fatalf("notes = %+v, %v", notes, err)
	}
	fi, err := os.Stat(filepath.Join(dir, "notes.jsonl"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("notes file: %v %v, want private", fi.Mode(), err)
	}
}

func TestADirRefusesASymlinkWhereItsNotesBelong(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(target, filepath.Join(dir, "notes.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := memory.Dir(dir).Add(context.Background(), memory.Note{Text: "x"}); err == nil {
		t.Fatal("a note was written through a symlink")
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("the symlink's target was created: %v", err)
	}
}

func TestRememberThenRecallFindsTheNote(t *testing.T) {
	store := memory.Dir(t.TempDir())
	clk := clock.NewFake(time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC))
	set, err := tool.NewSet(memory.Tools(store, memory.Who{Run: "r1", Model: "m1", Clock: clk})...)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, in string) tool.Result {
		return set.Call(context.Background(), name, json.RawMessage(in))
	}
	if r := call("recall", `{"query":"install"}`); r.IsError || r.Content != "no notes yet" {
		t.Fatalf("recall before any note = %+v", r)
	}
	for _, n := range []string{"The install steps are in docs/setup.md, not the README.", "The tests need PostgreSQL.", "Step 4 of install needs sudo."} {
		if r := call("remember", `{"note":`+quote(n)+`}`); r.IsError {
			t.Fatalf("remember = %+v", r)
		}
	}
	r := call("recall", `{"query":"install steps"}`)
	lines := strings.Split(strings.TrimSpace(r.Content), "\n")
	if r.IsError || len(lines) != 2 || !strings.Contains(lines[0], "docs/setup.md") || !strings.Contains(lines[0], "m1") {
		t.Fatalf("recall install steps = %q, want the two install notes, the best match first, with its model", r.Content)
	}
	if r := call("recall", `{"query":""}`); !strings.HasPrefix(r.Content, "- [note, 2026-11-29 22:00, m1] Step 4") {
		t.Fatalf("recall with no query = %q, want the newest first", r.Content)
	}
	if r := call("recall", `{"query":"kubernetes"}`); !strings.Contains(r.Content, "no note matches") {
		t.Fatalf("recall kubernetes = %q", r.Content)
	}
	if r := call("remember", `{"note":"  "}`); !r.IsError {
		t.Fatalf("an empty note = %+v, want an error", r)
	}
	if r := call("remember", `{"note":"`+strings.Repeat("x", memory.MaxNote+1)+`"}`); !r.IsError {
		t.Fatalf("a long note = %+v, want an error", r)
	}
	if tl, _ := set.Get("remember"); tl.Class() != tool.Write {
		t.Errorf("remember's class = %s, want write", tl.Class())
	}
	if tl, _ := set.Get("recall"); tl.Class() != tool.Read {
		t.Errorf("recall's class = %s, want read", tl.Class())
	}
}

func TestTheBriefGivesTheLatestNotesAndFailuresOldestFirst(t *testing.T) {
	if b := memory.Brief(nil, memory.BriefLimit); b != "" {
		t.Fatalf("no notes: brief %q", b)
	}
	notes := []memory.Note{
		{Kind: memory.Failure, Text: "unverified: only 3 of the 5 steps", Model: "m1"},
		{Kind: memory.Remembered, Text: "steps 4 and 5 are in docs/more.md", Model: "m1"},
		{Kind: memory.Remembered, Text: "newest", Model: "m1"},
	}
	b := memory.Brief(notes, 2)
	if strings.Contains(b, "only 3 of the 5") || !strings.Contains(b, "docs/more.md") || !strings.Contains(b, "the latest 2 of 3") {
		t.Fatalf("brief of the latest 2 = %q", b)
	}
	b = memory.Brief(notes, memory.BriefLimit)
	if i, j := strings.Index(b, "[failure, m1] unverified"), strings.Index(b, "docs/more.md"); i < 0 || j < i {
		t.Fatalf("brief = %q, want the failure, then the note", b)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
