package gate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/terminal"
	"github.com/nightshift-dev/nightshift/tool"
)

// spoof is the command: on a terminal, \r and ESC [2K wipe the
// line, and only "$ ls -la" is left to read.
const spoof = "rm -f important.txt; echo pwned > pwned.txt #\r\x1b[2K$ ls -la"

// hasControl reports a character a terminal would act on (other than a
// line feed or a tab).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && terminal.Lines(string(r)) != string(r)
	})
}

// Regression (issue 11): the preview printed \r and ESC raw, so the
// command above showed as "$ ls -la" and a person's yes ran rm -f.
func TestASpoofedCommandShowsWhatWillRun(t *testing.T) {
	summary, preview := Describe(nil, "run_command", mustJSON(t, map[string]string{"command": spoof}))
	want := `$ rm -f important.txt; echo pwned > pwned.txt #\r\x1b[2K$ ls -la`
	if !strings.HasPrefix(preview, want+"\n") || !strings.Contains(preview, escapedNote) || hasControl(preview) {
		t.Errorf("preview %q\nwant it to begin %q and say what was escaped", preview, want)
	}
	if hasControl(summary) || !strings.Contains(summary, `rm -f important.txt`) {
		t.Errorf("summary %q", summary)
	}

	var out strings.Builder
	act := command(spoof)
	act.Preview = "$ " + spoof // a caller's own preview is escaped at the terminal too
	if _, err := NewTerminalAsker(strings.NewReader("n\n"), &out).Ask(t.Context(), act); err != nil {
		t.Fatal(err)
	}
	if hasControl(out.String()) || !strings.Contains(out.String(), "rm -f important.txt") {
		t.Errorf("shown at the terminal: %q", out.String())
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\n\twith a tab", "plain text\n\twith a tab"},
		{"a\rb", `a\rb`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"bell\x07 del\x7f nul\x00", `bell\x07 del\x7f nul\x00`},
		{"csi \u009b2K", `csi \u009b2K`},
		{"rtl \u202eoverride\u202c", `rtl \u202eoverride\u202c`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"bad \xff byte", `bad \xff byte`},
		{"日本語 stays", "日本語 stays"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if again := Escape(Escape(tt.in)); again != Escape(tt.in) {
			t.Errorf("Escape is not idempotent on %q: %q", tt.in, again)
		}
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// within fails the test when f has not returned in time: what is
// measured is "it returns", not how fast.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s: hung", d)
	}
}

// Regression (issue 11): the preview of edit_file on a FIFO opened it
// outside any timeout, and the run hung until killed.
func TestAPreviewOfAFIFODoesNotHang(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, in := range []struct{ tool, input string }{
		{"edit_file", `{"path":"pipe","old":"a","new":"b"}`},
		{"write_file", `{"path":"pipe","content":"x"}`},
	} {
		var summary, preview string
		within(t, 30*time.Second, func() { summary, preview = Describe(root.FS(), in.tool, json.RawMessage(in.input)) })
		if !strings.Contains(summary+preview, "FIFO") {
			t.Errorf("%s: summary %q, preview %q; want them to say it is a FIFO", in.tool, summary, preview)
		}
	}
}

func TestAPreviewReadsABoundedPrefix(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("line\n", maxPreviewRead/5+100)
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	summary, preview := Describe(os.DirFS(dir), "write_file", mustJSON(t, map[string]string{"path": "big.txt", "content": "short\n"}))
	if !strings.Contains(summary, "overwrites a file of ") || !strings.Contains(preview, "too large to show a diff") {
		t.Errorf("summary %q, preview %q", summary, preview)
	}
}

// Regression (issue 11): --approve danger=allow --approve run_comand=deny
// let run_command run: the misspelt rule decided nothing.
func TestAMisspeltToolInARuleIsAnError(t *testing.T) {
	p := mustPolicy(t, "danger=allow", "run_comand=deny")
	tools := []string{"read_file", "write_file", "run_command", "list_dir", "edit_file"}
	err := p.Validate(tools)
	var ue *UnknownToolError
	if !errors.As(err, &ue) {
		t.Fatalf("Validate = %v, want an *UnknownToolError", err)
	}
	want := `gate: the approval rule names "run_comand=deny" no tool of this run; the tools are edit_file, list_dir, read_file, run_command, write_file, and the classes read, write and danger`
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	if err := mustPolicy(t, "danger=allow", "run_command=deny").Validate(tools); err != nil {
		t.Errorf("a rule naming a real tool: %v", err)
	}
	// A misspelt class is a name too, and is caught the same way.
	if err := mustPolicy(t, "dangr=allow").Validate(tools); err == nil {
		t.Error("dangr=allow was accepted")
	}
}

type entries struct{ got []Entry }

func (e *entries) Record(x Entry) error { e.got = append(e.got, x); return nil }

// Regression (issue 11): a call its schema rejected (it never ran) was
// audited as allowed.
func TestARejectedCallIsAuditedAsRejected(t *testing.T) {
	audit := &entries{}
	g := New(Config{Audit: audit, Clock: clock.NewFake(t0)})
	a := Action{Run: "r1", Tool: "write_file", Class: tool.Write, Input: json.RawMessage(`{"path":3}`)}
	if err := g.Reject(a, "write_file: the input does not match the tool's schema"); err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Time: t0, Run: "r1", Tool: "write_file", Class: tool.Write, Input: `write_file {"path":3}`,
		Decision: "reject", By: BySchema, Reason: "write_file: the input does not match the tool's schema"}}
	if diff := cmp.Diff(want, audit.got); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
}

// Regression (issue 11): a command refused because the workspace could
// not be captured was audited as allowed.
func TestAFailedCaptureIsAuditedAsRefused(t *testing.T) {
	audit := &entries{}
	g := New(Config{Audit: audit, Policy: mustPolicy(t, "danger=allow"), Clock: clock.NewFake(t0)})
	v, err := g.CheckThen(context.Background(), command("make"), func(context.Context) error {
		return errors.New("the workspace could not be captured for rollback: disk full")
	})
	if err != nil {
		t.Fatal(err)
	}
	if v.Allowed() || v.Decision != Refuse || v.By != ByRun {
		t.Errorf("verdict %+v", v)
	}
	if r := v.Result("run_command"); r.Content != "refused: run_command was not run; the workspace could not be captured for rollback: disk full" {
		t.Errorf("the model reads %q", r.Content)
	}
	if len(audit.got) != 1 || audit.got[0].Decision != "refuse" || audit.got[0].By != ByRun ||
		audit.got[0].Reason != "the workspace could not be captured for rollback: disk full" {
		t.Errorf("audit %+v", audit.got)
	}
	// A prepare that succeeds leaves the allow.
	audit.got = nil
	if v, err := g.CheckThen(context.Background(), command("make"), func(context.Context) error { return nil }); err != nil || !v.Allowed() {
		t.Errorf("verdict %+v, %v", v, err)
	}
	if len(audit.got) != 1 || audit.got[0].Decision != "allow" {
		t.Errorf("audit %+v", audit.got)
	}
	// A denied call is not prepared for.
	g = New(Config{Audit: audit})
	prepared := false
	if _, err := g.CheckThen(context.Background(), command("make"), func(context.Context) error { prepared = true; return nil }); err != nil || prepared {
		t.Errorf("prepared a denied call: %v, %v", prepared, err)
	}
}
