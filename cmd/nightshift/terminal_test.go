package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/terminal"
	"github.com/nightshift-dev/nightshift/ledger"
)

// spoofed is what a worker writes to fool the person at the terminal:
// the screen cleared, a forged line, a title set, a file name reversed.
const spoofed = "\x1b[2J\x1b[H\nall checks passed\r\x1b]0;pwned\x07 \u202egnp.exe\u009b2K\ttab"

// rawControl returns the first character of s, other than a line feed
// or a tab, that a terminal would act on or not show, and whether there
// is one.
func rawControl(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029, unicode.Is(unicode.Cf, r):
			return r, true
		}
	}
	return 0, false
}

// checkShown fails the test when what a command printed holds a raw
// control character, and when it does not show the spoof escaped (so
// that the test looked where the spoof is).
func checkShown(t *testing.T, where, text string) {
	t.Helper()
	if r, ok := rawControl(text); ok {
		t.Errorf("%s holds %U raw:\n%s", where, r, text)
	}
	if !strings.Contains(text, `\x1b[2J`) {
		t.Errorf("%s does not show the spoof escaped (the test looked in the wrong place?):\n%s", where, text)
	}
}

// checkOneLine fails the test when the spoof's line break printed a
// forged line of its own ("all checks passed", "all restored").
func checkOneLine(t *testing.T, where, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "all ") {
			t.Errorf("%s printed a line of the worker's: %q\n%s", where, line, text)
		}
	}
}

// Regression (issue 25): a cmd: check's output tail (ESC [2J, then "all
// checks passed") reached the terminal raw in the verify line and the
// run's closing lines, and a tool's error in its event line.
func TestACommandsOutputReachesTheTerminalEscaped(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFiles(t, dir, map[string]string{
		"work/notes.md": "notes\n",
		"s.yaml": `
turns:
  - tool_calls: [{name: read_file, input: {path: ` + strconv.Quote(spoofed) + `}}]
  - text: Done.
  - text: Done again.
  - text: Done at last.
`,
	})
	events := filepath.Join(dir, "ev.jsonl")
	check := "cmd:printf '" + strings.ReplaceAll(spoofed, "\n", `\n`) + "\\n'; exit 1"
	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
		"--no-judge", "--check", check, "--max-verify-rounds", "2", "--events", events, "--sandbox", "none", "Take notes")
	if res.code != 4 {
		t.Fatalf("exit %d, want 4 (unverified)\n%s", res.code, res.stderr)
	}
	checkShown(t, "stderr", res.stderr)
	checkOneLine(t, "stderr", res.stderr)
	// The JSON events are data: the detail as it was.
	if ev := readFile(t, events); !strings.Contains(ev, `\u001b[2J`) {
		t.Errorf("--events does not hold the output as it was:\n%s", ev)
	}
}

// Regression (issue 25): a task's title (a proposer's idea) reached the
// terminal raw in `nightshift task list`, and could break its row and its
// columns with a line break or a tab; --json stays exact.
func TestTaskTitlesReachTheTerminalEscaped(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	for _, title := range []string{"a plain task", spoofed} {
		if res := runCLI(t, "task", "add", "--db", db, title); res.code != 0 {
			t.Fatalf("task add: exit %d: %s", res.code, res.stderr)
		}
	}
	res := runCLI(t, "task", "list", "--db", db)
	if res.code != 0 {
		t.Fatalf("task list: exit %d: %s", res.code, res.stderr)
	}
	checkShown(t, "task list", res.stdout)
	checkOneLine(t, "task list", res.stdout)
	if rows := strings.Count(res.stdout, "\n"); rows != 3 || !strings.Contains(res.stdout, `\ttab`) {
		t.Errorf("task list printed %d lines for two tasks and a header, the title's tab not shown as \\t:\n%s", rows, res.stdout)
	}
	js := runCLI(t, "task", "list", "--db", db, "--json")
	var ts []ledger.Task
	if err := json.Unmarshal([]byte(js.stdout), &ts); err != nil || len(ts) != 2 || ts[1].Title != spoofed {
		t.Errorf("task list --json is not the data as it is (%v): %s", err, js.stdout)
	}
}

// Regression (issue 25): recover's messages name paths a run made, and a
// path holding ESC or a line break reached the terminal raw.
func TestRecoversMessagesReachTheTerminalEscaped(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	name := "x\x1b[2J\nall restored.txt"
	writeFiles(t, dir, map[string]string{
		"work/notes.md": "notes\n",
		"s.yaml": `
turns:
  - tool_calls: [{name: write_file, input: {path: ` + strconv.Quote(name) + `, content: "made\n"}}]
    usage: {input: 2000, output: 200}
  - {text: "never reached", usage: {input: 2000, output: 200}}
`,
	})
	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"),
		"--no-judge", "--budget-tokens", "3000", "--sandbox", "none", "Make a file")
	if res.code != 9 {
		t.Fatalf("exit %d, want 9 (budget: paused)\n%s", res.code, res.stderr)
	}
	// Somebody else changes the file: recover leaves it, and names it.
	if err := os.WriteFile(filepath.Join(work, name), []byte("changed by a person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = runCLI(t, "recover", "--dir", work)
	if res.code != 0 || !strings.Contains(res.stderr, "left as it is") {
		t.Fatalf("recover: exit %d\n%s", res.code, res.stderr)
	}
	checkShown(t, "recover", res.stderr)
	checkOneLine(t, "recover", res.stderr)
}

// The night's status line is redrawn with the one control sequence
// nightshift writes itself; the title in it is a proposer's, escaped.
func TestTheNightsStatusLineShowsATitleEscaped(t *testing.T) {
	var b bytes.Buffer
	s := newNightStatus(stderrLike(&b), true)
	s.Emit(stepStart(spoofed))
	out := strings.ReplaceAll(b.String(), eraseLine, "")
	checkShown(t, "the status line", out)
	checkOneLine(t, "the status line", out)
	if !strings.HasPrefix(b.String(), eraseLine) {
		t.Errorf("the status line is not drawn in place: %q", b.String())
	}
}

// stderrLike is w as run hands stderr to the commands: escaped.
func stderrLike(w io.Writer) io.Writer { return terminal.Writer(w) }

// stepStart is a step's start event, for the task titled title.
func stepStart(title string) event.Event {
	return event.Event{Run: "2025-10-21", Type: "step-start", Detail: "builder/b1 task=3",
		Data: map[string]any{"role": ledger.Builder, "worker": "b1", "task": int64(3), "title": title, "n": 5, "ceiling": 14}}
}

// Every write to stdout says whether it is text for a person or data
// (output.go), and nothing writes to the process's own streams but
// Main: a new print path that bypassed the escaping would have to break
// one of these rules. Control sequences are written in one place, the
// status line's eraseLine.
func TestEveryPrintPathGoesThroughTheEscaping(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var fn string
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				fn = x.Name.Name
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "os" && (x.Sel.Name == "Stdout" || x.Sel.Name == "Stderr") && fn != "Main" {
					t.Errorf("%s: %s writes to os.%s itself, past the redacting and escaping writers", fset.Position(x.Pos()), fn, x.Sel.Name)
				}
				if x.Sel.Name == "OutOrStdout" && name != "output.go" {
					t.Errorf("%s: %s writes to stdout without saying whether it is text or data (humanOut, dataOut, answerOut)", fset.Position(x.Pos()), fn)
				}
			case *ast.BasicLit:
				if x.Kind == token.STRING && strings.Contains(strings.ToLower(x.Value), `\x1b`) && !(name == "nightstatus.go" && x.Value == `"\r\x1b[K"`) {
					t.Errorf("%s: a control sequence written outside the status line's eraseLine", fset.Position(x.Pos()))
				}
			}
			return true
		})
	}
}

// The process's stderr is escaped whatever writes to it: an error message
// that quotes a flag's value, cobra's own complaints.
func TestStderrIsEscapedWhateverWritesIt(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--dir", filepath.Join(t.TempDir(), spoofed), "--provider", "scripted", "a task"},
		{"task", "list", "--db", filepath.Join(t.TempDir(), spoofed, "x.db")},
		{"task", "list", "--" + spoofed},
	} {
		res := runCLI(t, args...)
		if res.code == 0 {
			t.Fatalf("%v: exit 0", args[:2])
		}
		checkShown(t, strings.Join(args[:2], " "), res.stderr)
	}
}
