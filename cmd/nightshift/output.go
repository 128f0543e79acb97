package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/internal/terminal"
	"github.com/nightshift-dev/nightshift/redact"
)

// The command's stdout, by what is written there. stderr is all for
// people, and run escapes the whole of it (terminal.Writer); stdout
// carries both text for people and data, so every write to it names
// which it is, through one of these three (a test holds the package to
// it). Text that a worker controls and that sits in a line's field (a
// title, a reason, a path) is escaped on its own with terminal.Escape,
// so that it cannot break its line or its column.

// humanOut is stdout for text a person reads: tables, the report's text,
// the answers to task commands. What a terminal would act on is shown
// escaped.
func humanOut(cmd *cobra.Command) io.Writer { return terminal.Writer(cmd.OutOrStdout()) }

// dataOut is stdout for data a program reads: JSON (--json), a new
// task's ID. It is written as it is (redacted, never escaped).
func dataOut(cmd *cobra.Command) io.Writer { return cmd.OutOrStdout() }

// answerOut is stdout for a run's answer: data when stdout is a file or
// a pipe (`nightshift run ... > answer.md` keeps it byte for byte), text
// for a person when it is a terminal, escaped as the rest.
func answerOut(cmd *cobra.Command) io.Writer {
	if f, ok := redact.Underlying(cmd.OutOrStdout()).(*os.File); ok && gate.IsTerminal(f) {
		return humanOut(cmd)
	}
	return dataOut(cmd)
}

// esc is v as a line's field shows it: its text (an error's message, a
// path) escaped onto one line (terminal.Escape).
func esc(v any) string { return terminal.Escape(fmt.Sprint(v)) }
