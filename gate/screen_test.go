package gate

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

// screenOf returns the rows a 80-column terminal takes to show s.
func screenOf(s string) int {
	rows := 0
	for _, line := range strings.Split(s, "\n") {
		rows += max(1, (utf8.RuneCountInString(line)+screenCols-1)/screenCols)
	}
	return rows
}

// asked returns what a person at the terminal is shown for a.
func asked(t *testing.T, a Action) string {
	t.Helper()
	var out strings.Builder
	if _, err := NewTerminalAsker(strings.NewReader("n\n"), &out).Ask(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Regression (issue 25): a command of "echo ok #", 40 line breaks and
// then the line that mattered pushed that line off a 24-row screen: the
// person saw "$ echo ok #", blank lines and the question. The command is
// shown on one line, its breaks as \n, with how many lines it has; no
// question is taller than the screen, and the end of what it asks about
// is always beside the prompt.
func TestTheQuestionFitsTheScreenAndShowsTheDangerousPart(t *testing.T) {
	files := fstest.MapFS{"big.txt": {Data: []byte(strings.Repeat("old line\n", 300))}}
	tests := []struct {
		name, tool, input string
		want              []string
	}{
		{"forty line breaks before the line that matters", "run_command",
			`{"command":"echo ok #` + strings.Repeat(`\n`, 40) + `rm -rf ~"}`,
			[]string{`echo ok #\n\n\n`, `\nrm -rf ~`, "the command has 41 lines"}},
		{"four thousand line breaks", "run_command",
			`{"command":"echo ok #` + strings.Repeat(`\n`, 4000) + `rm -rf ~"}`,
			[]string{"$ echo ok #", `\nrm -rf ~`, "the command has 4001 lines", "rows not shown"}},
		{"the line that matters after a screenful of spaces", "run_command",
			`{"command":"echo ok` + strings.Repeat(" ", 5000) + `; rm -rf ~"}`,
			[]string{"$ echo ok", "; rm -rf ~", "rows not shown"}},
		{"forty line breaks in a path", "write_file",
			`{"path":"notes` + strings.Repeat(`\n`, 40) + `.bashrc","content":"x"}`,
			[]string{`write_file notes\n\n`, `\n.bashrc (1 bytes, new file)`}},
		{"a write whose diff is longer than the screen", "write_file",
			`{"path":"big.txt","content":"` + strings.Repeat(`new line\n`, 300) + `"}`,
			[]string{"write_file big.txt", "overwrites a file", "more lines"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Action{Run: "r1", Tool: tt.tool, Class: "danger", Input: []byte(tt.input)}
			a.Summary, a.Preview = Describe(files, tt.tool, a.Input)
			shown := asked(t, a)
			if rows := screenOf(shown); rows > screenRows {
				t.Errorf("the question takes %d rows of a %d-row screen:\n%s", rows, screenRows, shown)
			}
			for _, want := range append(tt.want, "wants to run ──", fmt.Sprintf("Allow %s? [y/N] ", tt.tool)) {
				if !strings.Contains(shown, want) {
					t.Errorf("the question does not show %q:\n%s", want, shown)
				}
			}
		})
	}
}
