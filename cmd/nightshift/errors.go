package main

import (
	"fmt"

	"github.com/nightshift-dev/nightshift/agent"
)

// exitError carries an exit status out of a command.
type exitError struct {
	code int
	err  error
	// quiet: the command already reported the failure.
	quiet bool
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a usage error (exit 2): nothing was run.
func usageError(err error) error { return &exitError{code: exitFor(agent.Usage), err: err} }

// usagef formats a usage error.
func usagef(format string, args ...any) error { return usageError(fmt.Errorf(format, args...)) }

// exitWith ends the command with code; the command has printed what the
// user needs to know.
func exitWith(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code, quiet: true}
}

// plural returns word, with an s unless n is 1: "1 step", "2 steps".
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
