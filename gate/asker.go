package gate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Answer is a person's answer to the gate.
type Answer int

// The answers. The zero Answer is No: a missing answer never allows.
const (
	No Answer = iota
	Yes
	// Park defers the call to a person who is not there now: the gate
	// returns a *ParkedError and the night parks the task.
	Park
)

// Asker asks a person about an Action. An unattended pipeline plugs in
// one that answers Park.
type Asker interface {
	Ask(ctx context.Context, a Action) (Answer, error)
}

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, a Action) (Answer, error)

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, a Action) (Answer, error) { return f(ctx, a) }

// Parker is the Asker of an unattended night: it parks every call that
// needs a person.
var Parker Asker = AskerFunc(func(context.Context, Action) (Answer, error) { return Park, nil })

// TerminalAsker shows a person the Action's preview and waits for yes.
type TerminalAsker struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
}

var _ Asker = (*TerminalAsker)(nil)

// NewTerminalAsker returns an Asker that writes to out and reads the
// answer from in, a line at a time.
func NewTerminalAsker(in io.Reader, out io.Writer) *TerminalAsker {
	return &TerminalAsker{in: bufio.NewReader(in), out: out}
}

// Interactive returns a TerminalAsker on in and out when in is a terminal,
// and nil otherwise: with no terminal there is nobody to ask.
func Interactive(in *os.File, out io.Writer) Asker {
	if !IsTerminal(in) {
		return nil
	}
	return NewTerminalAsker(in, out)
}

// Ask shows the preview and reads one line: "y" or "yes" allows, anything
// else (an empty line, end of input) refuses. One question at a time.
// Everything shown is escaped (see Escape): what a person approves is
// what will run, whatever characters the model put in it. The question
// fits a screen of 24 rows of 80 columns, its header and its prompt
// included (see onScreen).
func (t *TerminalAsker) Ask(ctx context.Context, a Action) (Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "\n── %s (%s) wants to run ──\n%s\n", Escape(a.Tool), Escape(string(a.Class)), onScreen(strings.TrimRight(Escape(a.Preview), "\n")))
	fmt.Fprintf(t.out, "Allow %s? [y/N] ", Escape(a.Tool))
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	// The read cannot be interrupted; if ctx ends first it finishes in
	// the background and its line is dropped.
	go func() {
		line, err := t.in.ReadString('\n')
		got <- read{line, err}
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.out)
		return No, ctx.Err()
	case r := <-got:
		switch strings.ToLower(strings.TrimSpace(r.line)) {
		case "y", "yes":
			return Yes, nil
		}
		if r.err != nil {
			fmt.Fprintln(t.out) // end of input: the prompt's line ends here
		}
		return No, nil
	}
}

// The smallest screen a question must fit, and the rows of it that are
// not the preview's: the blank line and the header above it, the prompt
// below, and a row for the line of the shell that started nightshift.
const (
	screenRows, screenCols = 24, 80
	previewRows            = screenRows - 4
	// headRows of a preview too long for the screen are shown from its
	// start and the rest from its end, where a command's last part and a
	// diff's last lines are, beside the question.
	headRows = 6
)

// onScreen returns preview cut to previewRows rows of screenCols
// columns, as a terminal wraps it: a preview that does not fit loses
// rows in its middle, and a row in their place says how many and how
// much they held, so that the question is never pushed off the screen
// by what it asks about, and a person knows what was not shown.
func onScreen(preview string) string {
	var rows []string
	for _, line := range strings.Split(preview, "\n") {
		r := []rune(line)
		for len(r) > screenCols {
			rows = append(rows, string(r[:screenCols]))
			r = r[screenCols:]
		}
		rows = append(rows, string(r))
	}
	if len(rows) <= previewRows {
		return preview
	}
	tail := previewRows - headRows - 1
	hidden := rows[headRows : len(rows)-tail]
	chars := 0
	for _, r := range hidden {
		chars += utf8.RuneCountInString(r)
	}
	note := fmt.Sprintf("… %d rows not shown (%d characters): answer no unless you know what they hold …", len(hidden), chars)
	return strings.Join(append(append(slices.Clip(rows[:headRows]), note), rows[len(rows)-tail:]...), "\n")
}
