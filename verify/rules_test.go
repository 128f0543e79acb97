package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/workspace"
)

func TestRules(t *testing.T) {
	schemaDir := setup(t, map[string]string{
		"person.schema.json": `{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}`,
	})
	post := chinese(3341)
	// Every character but the punctuation and newlines is a Han word.
	han := len([]rune(post)) - strings.Count(post, "，") - strings.Count(post, "。") - strings.Count(post, "\n")
	dir := setup(t, map[string]string{
		"post.md":     post,
		"notes.md":    "time: 10:30\nstatus: draft\n",
		"words.txt":   "one two three",
		"good.json":   `{"name":"Ada"}`,
		"nameless.js": `{"age":36}`,
		"broken.json": `{"name":`,
		"docs/a.md":   "a",
	})
	tests := []struct {
		name string
		spec string
		want string // "" = pass
	}{
		{"min-chars passes at the floor", "min-chars:post.md:3341", ""},
		{"min-chars reports the real count beside the floor", "min-chars:post.md:4000", "min-chars post.md: 3341 < 4000"},
		{"min-chars says a missing file is missing", "min-chars:nope.md:10", "min-chars nope.md: missing"},
		{"max-chars passes at the ceiling", "max-chars:post.md:3341", ""},
		{"max-chars reports the count over the ceiling", "max-chars:post.md:3000", "max-chars post.md: 3341 > 3000"},
		{"min-words passes", "min-words:words.txt:3", ""},
		{"min-words reports the count", "min-words:words.txt:500", "min-words words.txt: 3 < 500"},
		{"min-words counts each Han character", "min-words:post.md:3000", fmt.Sprintf("min-words post.md: %d < 3000", han)},
		{"exists passes for a file", "exists:notes.md", ""},
		{"exists passes for a folder", "exists:docs", ""},
		{"exists says missing", "exists:docs/install.md", "exists docs/install.md: missing"},
		{"contains finds text holding colons", "contains:notes.md:time: 10:30", ""},
		{"contains quotes what it missed", "contains:notes.md:status: final", `contains notes.md: "status: final" not found`},
		{"matches passes", "matches:notes.md:(?m)^status: \\w+$", ""},
		{"matches quotes the regex it missed", "matches:notes.md:^# Title", `matches notes.md: no match for "^# Title"`},
		{"json passes valid JSON", "json:good.json", ""},
		{"json reports invalid JSON", "json:broken.json", "json broken.json: invalid JSON: unexpected end of JSON input"},
		{"json with a schema passes a match", "json:good.json:" + filepath.Join(schemaDir, "person.schema.json"), ""},
		{"json with a schema reports a mismatch", "json:nameless.js:person.schema.json", "json nameless.js: does not match person.schema.json: "},
		{"a rule on a folder says so", "min-chars:docs:1", "min-chars docs: is a folder, not a file"},
		{"cmd passes on exit 0", "cmd:test -f notes.md", ""},
		{"cmd fails with the status and output tail", "cmd:echo first; echo last >&2; exit 3", "cmd \"echo first; echo last >&2; exit 3\": exit status 3; output tail:\nfirst\nlast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRule(t, tt.spec, schemaDir)
			f := r.Check(context.Background(), Input{Dir: dir, Answer: "done"})
			if tt.want == "" {
				if f != nil {
					t.Fatalf("%s failed: %s", tt.spec, f.Message)
				}
				return
			}
			if f == nil {
				t.Fatalf("%s passed; want %q", tt.spec, tt.want)
			}
			if f.Check != r.Name() {
				t.Errorf("failure check = %q, want the rule's name %q", f.Check, r.Name())
			}
			// A schema's own wording belongs to the library; the rest is ours.
			if strings.HasSuffix(tt.want, ": ") {
				if !strings.HasPrefix(f.Message, tt.want) {
					t.Errorf("message = %q, want prefix %q", f.Message, tt.want)
				}
				return
			}
			if diff := cmp.Diff(tt.want, f.Message); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotEmpty(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		pass         bool
	}{
		{"a real answer passes", "done: wrote post.md", true},
		{"an empty answer fails", "", false},
		{"a whitespace answer fails", " \n\t", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := NotEmpty().Check(context.Background(), Input{Answer: tt.answer})
			if (f == nil) != tt.pass {
				t.Fatalf("pass = %v, want %v (%+v)", f == nil, tt.pass, f)
			}
			if f != nil && f.Message != "not-empty: the final answer is empty" {
				t.Errorf("message = %q", f.Message)
			}
		})
	}
}

// TestARuleCannotReadASymlinkOutOrAFIFO: rules read through the
// workspace's fs.FS (issue 17), so a symlink that leads out, the state
// folder and a FIFO are refused, each said in words, and the FIFO at
// once rather than waiting for a writer; the same with Files given (a
// run's Root.FS()) and without (Dir opened as a workspace). The judge's
// prompt reads the changed files the same way.
func TestARuleCannotReadASymlinkOutOrAFIFO(t *testing.T) {
	outside := setup(t, map[string]string{"secret.txt": strings.Repeat("x", 100)})
	dir := setup(t, map[string]string{".nightshift/journal": "j"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	rel, err := filepath.Rel(dir, filepath.Join(outside, "secret.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, filepath.Join(dir, "rel-link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	inputs := map[string]Input{"Files": {Dir: dir, Files: root.FS()}, "Dir": {Dir: dir}}
	tests := []struct{ spec, want string }{
		{"min-chars:link.txt:1", "min-chars link.txt: points outside the workspace"},
		{"contains:rel-link.txt:x", "contains rel-link.txt: points outside the workspace"},
		{"exists:link.txt", "exists link.txt: points outside the workspace"},
		{"min-chars:pipe:1", "min-chars pipe: not a regular file (a FIFO, socket or device is never read)"},
		{"matches:pipe:x", "matches pipe: not a regular file (a FIFO, socket or device is never read)"},
		{"contains:.nightshift/journal:j", "contains .nightshift/journal: is in nightshift's state folder, which no check reads"},
	}
	for how, in := range inputs {
		for _, tt := range tests {
			t.Run(how+" "+tt.spec, func(t *testing.T) {
				r, err := ParseRule(tt.spec, "")
				if err != nil {
					t.Fatal(err)
				}
				done := make(chan *Failure, 1)
				go func() { done <- r.Check(context.Background(), in) }()
				select {
				case f := <-done:
					if f == nil || f.Message != tt.want {
						t.Errorf("failure = %+v, want %q", f, tt.want)
					}
				case <-time.After(30 * time.Second):
					t.Fatal("the rule hung")
				}
			})
		}
		t.Run(how+" the judge's prompt", func(t *testing.T) {
			in := in
			in.Changed = []string{"link.txt", "pipe"}
			got := readChanged(in, 1000)
			for i, want := range []string{"(not readable: points outside the workspace)",
				"(not readable: not a regular file (a FIFO, socket or device is never read))"} {
				if got[i].shown != want || strings.Contains(string(got[i].data), "xxx") {
					t.Errorf("%s shown as %q (data %q), want %q", got[i].path, got[i].shown, got[i].data, want)
				}
			}
		})
	}
}

func TestCmdTimesOut(t *testing.T) {
	// The time limit holds the sandbox's start too (bubblewrap's mounts,
	// the look at the workspace): 50ms was too little for "started" to be
	// printed on a busy machine.
	r := Cmd("echo started; sleep 5", time.Second)
	f := r.Check(context.Background(), Input{Dir: t.TempDir()})
	if f == nil {
		t.Fatal("a command past its timeout passed")
	}
	if want := "cmd \"echo started; sleep 5\": timed out after 1s; output tail:\nstarted"; f.Message != want {
		t.Errorf("message = %q, want %q", f.Message, want)
	}
}

func TestCmdHidesAPIKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
	f := Cmd(`echo "key=${ANTHROPIC_API_KEY:-unset}"; exit 1`, 0).Check(context.Background(), Input{Dir: t.TempDir()})
	if f == nil {
		t.Fatal("want a failure")
	}
	if strings.Contains(f.Message, "sk-ant") || !strings.Contains(f.Message, "key=unset") {
		t.Errorf("the command saw the API key: %q", f.Message)
	}
}

func TestCmdKeepsOnlyTheTail(t *testing.T) {
	f := Cmd("seq 1 1000; exit 1", 0).Check(context.Background(), Input{Dir: t.TempDir()})
	if f == nil {
		t.Fatal("want a failure")
	}
	lines := strings.Split(f.Message, "\n")
	if got := lines[len(lines)-1]; got != "1000" {
		t.Errorf("last line = %q, want 1000", got)
	}
	if lines[1] != "..." || len(lines) != 2+tailLines {
		t.Errorf("want a cut marker and %d lines, got:\n%s", tailLines, f.Message)
	}
}
