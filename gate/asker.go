package gate

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
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
// what will run, whatever characters the model put in it.
func (t *TerminalAsker) Ask(ctx context.Context, a Action) (Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "\n── %s (%s) wants to run ──\n%s\n", Escape(a.Tool), Escape(string(a.Class)), strings.TrimRight(Escape(a.Preview), "\n"))
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
