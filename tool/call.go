package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Call runs the tool called name with input. It never returns a Go error
// and never panics: each failure is an error result written for the model
// (seed 000: tool failures go back to the model as is_error results).
//
//   - an unknown name lists the tools that exist, so a model that invented
//     one can pick a real one;
//   - input that is not JSON, or does not match the schema, gets the
//     parser's or the validator's message (empty input counts as {});
//   - a panic in the tool becomes an error result with the panic's text;
//   - a call that outlives the timeout (or the caller's deadline) gets an
//     error result that says it timed out, marked Transient.
//
// Every result's content passes through Config.Redact, if set.
func (s *Set) Call(ctx context.Context, name string, input json.RawMessage) Result {
	res := s.call(ctx, name, input)
	if f := s.redact.Load(); f != nil {
		res.Content = (*f)(res.Content)
	}
	return res
}

func (s *Set) call(ctx context.Context, name string, input json.RawMessage) Result {
	if err := s.Validate(name, input); err != nil {
		return Error(err.Error())
	}
	return s.execute(ctx, name, input)
}

// CallValidated is Call for a call Validate has already accepted: the
// agent validates every call before the gate, and parsing the input and
// checking it against the schema once more, on every step, was work done
// twice on the loop's hot path. A name Validate did not accept gets
// Call's answer.
func (s *Set) CallValidated(ctx context.Context, name string, input json.RawMessage) Result {
	if _, ok := s.entries[name]; !ok {
		return s.Call(ctx, name, input)
	}
	res := s.execute(ctx, name, input)
	if f := s.redact.Load(); f != nil {
		res.Content = (*f)(res.Content)
	}
	return res
}

// execute runs a call known to be valid.
func (s *Set) execute(ctx context.Context, name string, input json.RawMessage) Result {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	e := s.entries[name]
	r := s.run(ctx, e.tool, name, input)
	if _, ok := e.tool.(Opaque); ok {
		// What a call that timed out did is not known: it is not repeated.
		r.Transient = false
	}
	return r
}

// InputError is a call that cannot run: an unknown tool, or an input that
// is not JSON or does not match the tool's schema. Its message is written
// for the model.
type InputError struct {
	// Tool is the name called.
	Tool string
	// Msg says what is wrong and what to do instead.
	Msg string
}

func (e *InputError) Error() string { return e.Msg }

// Validate checks a call without running it: the tool exists and the
// input matches its schema (empty input counts as {}). The error is an
// *InputError, whose message is the result Call would give. The agent
// asks before the gate does, so that a call that could never run is not
// put to a person, nor audited as allowed.
func (s *Set) Validate(name string, input json.RawMessage) error {
	e, ok := s.entries[name]
	if !ok {
		if len(s.names) == 0 {
			return &InputError{name, fmt.Sprintf("unknown tool %q; this run has no tools", name)}
		}
		return &InputError{name, fmt.Sprintf("unknown tool %q; the tools are: %s", name, strings.Join(s.names, ", "))}
	}
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return &InputError{name, fmt.Sprintf("%s: the input is not valid JSON: %v", name, err)}
	}
	schema, err := e.schema()
	if err != nil {
		// A Prechecked tool whose tests did not check its schema.
		return &InputError{name, fmt.Sprintf("%s: the tool's input schema is broken (a bug of the tool): %v", name, err)}
	}
	if err := schema.Validate(v); err != nil {
		return &InputError{name, fmt.Sprintf("%s: the input does not match the tool's schema: %v", name, err)}
	}
	return nil
}

// run calls t in its own goroutine so that a tool that ignores its
// context cannot hold the run past the timeout. Such a tool's goroutine
// is left to finish on its own; its late result is dropped. A write that
// timed out may therefore still happen: that is why only read tools are
// retried on a Transient result, and why the write tools are idempotent.
func (s *Set) run(ctx context.Context, t Tool, name string, input json.RawMessage) Result {
	timeout := s.timeoutFor(t)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- Error(fmt.Sprintf("%s failed: panic: %v", name, p))
			}
		}()
		done <- t.Run(cctx, input)
	}()
	select {
	case r := <-done:
		// A tool that gave up because its context ended reports that in
		// its own words; the model gets the same timeout result either way.
		if r.IsError && cctx.Err() != nil {
			return ended(ctx, name, timeout)
		}
		return r
	case <-cctx.Done():
		return ended(ctx, name, timeout)
	}
}

// ended is the result of a call whose context ended: a transient timeout,
// unless the caller cancelled (then retrying is not wanted).
func ended(ctx context.Context, name string, timeout time.Duration) Result {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return Error(fmt.Sprintf("%s was cancelled before it finished", name))
	case ctx.Err() != nil:
		return Result{Content: fmt.Sprintf("%s timed out: the run's deadline passed", name), IsError: true, Transient: true}
	default:
		return Result{Content: fmt.Sprintf("%s timed out after %s", name, timeout), IsError: true, Transient: true}
	}
}
