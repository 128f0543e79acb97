package tool

import (
	"context"
	"encoding/json"

	"github.com/nightshift-dev/nightshift/llm"
)

// Class is a tool's side-effect class.
type Class string

const (
	// Read changes nothing; it may be retried on a transient failure.
	Read Class = "read"
	// Write changes the workspace; it is idempotent or it is not retried.
	Write Class = "write"
	// Danger may change anything (a command); it waits behind the gate.
	Danger Class = "danger"
)

// Valid reports whether c is one of the three classes.
func (c Class) Valid() bool { return c == Read || c == Write || c == Danger }

// Result is what a tool hands back to the model.
type Result struct {
	// Content is the text the model reads.
	Content string
	// IsError marks a failure the model should route around.
	IsError bool
	// Transient marks a failure that a retry might cure (a timeout, a
	// busy resource). Only read-class tools are retried on it.
	Transient bool
}

// Errorf-style helpers keep tool code short.

// Error returns an error result.
func Error(msg string) Result { return Result{Content: msg, IsError: true} }

// OK returns a success result.
func OK(content string) Result { return Result{Content: content} }

// Tool is one tool.
type Tool interface {
	// Spec describes the tool to the model; its InputSchema is enforced
	// by the Set before Run is called.
	Spec() llm.ToolSpec
	// Class is the tool's side-effect class.
	Class() Class
	// Run executes the tool with an input that passed the schema.
	Run(ctx context.Context, input json.RawMessage) Result
}
