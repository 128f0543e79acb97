package gate

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

func TestTerminalAsker(t *testing.T) {
	tests := []struct {
		name, typed string
		want        Answer
	}{
		{"y allows", "y\n", Yes},
		{"yes in capitals allows", " YES \n", Yes},
		{"an empty line refuses", "\n", No},
		{"anything else refuses", "sure\n", No},
		{"the end of input refuses", "", No},
		{"yes without a newline at the end of input allows", "yes", Yes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			a := NewTerminalAsker(strings.NewReader(tt.typed), &out)
			got, err := a.Ask(t.Context(), command("make deploy"))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("answer = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTerminalAskerShowsThePreview(t *testing.T) {
	var out strings.Builder
	a := NewTerminalAsker(strings.NewReader("n\n"), &out)
	act := command("make deploy")
	act.Preview = "$ make deploy"
	if _, err := a.Ask(t.Context(), act); err != nil {
		t.Fatal(err)
	}
	want := "\n── run_command (danger) wants to run ──\n$ make deploy\nAllow run_command? [y/N] "
	if out.String() != want {
		t.Errorf("shown:\n%q\nwant:\n%q", out.String(), want)
	}
}

func TestTerminalAskerGivesUpWhenTheRunEnds(t *testing.T) {
	r, w := io.Pipe() // nobody types
	defer w.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got, err := NewTerminalAsker(r, io.Discard).Ask(ctx, command("make"))
	if err == nil || got != No {
		t.Errorf("Ask = %v, %v; want No and the context's error", got, err)
	}
}

func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if IsTerminal(null) {
		t.Error("/dev/null counts as a terminal")
	}
	if Interactive(null, io.Discard) != nil {
		t.Error("Interactive on /dev/null returned an asker; with no terminal there is nobody to ask")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(r) {
		t.Error("a pipe counts as a terminal")
	}
	// The master side of a pseudo-terminal answers like a terminal.
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to check the positive case: %v", err)
	}
	defer pty.Close()
	if !IsTerminal(pty) {
		t.Error("a pseudo-terminal does not count as a terminal")
	}
}
