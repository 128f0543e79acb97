package runspec

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/verify"
)

// ErrInvalid marks a Spec that cannot run: errors.Is(err, ErrInvalid)
// holds for every *Error.
var ErrInvalid = errors.New("invalid run spec")

// Front names where a Spec's values came from, for an Error to name the
// value as the person wrote it.
type Front int

// The front ends.
const (
	// FromLibrary: a Go caller's Spec or Config; the error names the flag
	// and the task-file key, as the CLI's does.
	FromLibrary Front = iota
	// FromFlags: `nightshift run` or `batch`, whose values come from the
	// flags and a task file together.
	FromFlags
	// FromTaskFile: a task file or a batch's task list; the error names the
	// key and its file and line.
	FromTaskFile
	// FromRole: a role of a pipeline file; the error names roles.ROLE.KEY and
	// its file and line.
	FromRole
)

// Error is a field of a Spec with a value that cannot run.
type Error struct {
	// Option is the field's row of the table.
	Option Option
	// Problem says what is wrong, and what to write instead.
	Problem string
	// Front, File, Line and RoleName say where the value was written
	// (In); the zero Front names the flag and the key.
	Front    Front
	File     string
	Line     int
	RoleName string
}

func (e *Error) Error() string {
	name := e.Option.Name()
	switch e.Front {
	case FromTaskFile:
		name = cmpOr(e.Option.Key, name)
	case FromRole:
		name = fmt.Sprintf("roles.%s.%s", e.RoleName, cmpOr(e.Option.RoleKey, e.Option.Key))
	}
	msg := name + " " + e.Problem
	if strings.HasPrefix(e.Problem, "unknown ") {
		// A clause of its own: `--provider: unknown provider "x": ...`.
		msg = name + ": " + e.Problem
	}
	if e.Option.Flag != "" && strings.HasPrefix(e.Problem, e.Option.Flag+" ") {
		// The problem names the value already: `check "x": ...`; a file's
		// key is named before it (`checks: check "x": ...`).
		msg = e.Problem
		if e.Front == FromTaskFile || e.Front == FromRole {
			msg = name + ": " + e.Problem
		}
	}
	if e.File != "" {
		msg = e.File + ": " + msg
	}
	if e.Line > 0 {
		msg += fmt.Sprintf(" (line %d)", e.Line)
	}
	return msg
}

// Is makes every Error match ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// In returns a copy of err, when it is an *Error, that says where its
// value was written: front, the file and the line of its key in lines
// (KeyLines); other errors come back as they are.
func In(err error, front Front, file string, lines map[string]int) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Front, c.File = front, file
	key := c.Option.Key
	if front == FromRole {
		key = c.Option.RoleKey
	}
	c.Line = lines[key]
	return &c
}

// InRole is In for a role of a pipeline file.
func InRole(err error, role, file string, lines map[string]int) error {
	err = In(err, FromRole, file, lines)
	var e *Error
	if errors.As(err, &e) {
		e.RoleName = role
	}
	return err
}

// Validate reports the first field of s that cannot run, as an *Error.
// Zero fields are the defaults and always pass. Rules are checked for
// their syntax, files they name read from "." (ValidateIn).
func (s *Spec) Validate() error { return s.ValidateIn(".") }

// ValidateIn is Validate with the folder that relative files of the
// rules (a json: rule's schema) are read from.
func (s *Spec) ValidateIn(base string) error {
	bad := func(field, format string, args ...any) error {
		o, _ := ByField(field)
		return &Error{Option: o, Problem: fmt.Sprintf(format, args...)}
	}
	for _, n := range []struct {
		field string
		v     int64
	}{
		{"MaxSteps", int64(s.MaxSteps)}, {"MaxTokens", int64(s.MaxTokens)}, {"MaxVerifyRounds", int64(s.MaxVerifyRounds)},
		{"BudgetTokens", s.BudgetTokens}, {"ContextWindow", int64(s.ContextWindow)}, {"RPM", int64(s.RPM)}, {"TPM", int64(s.TPM)},
		{"SubagentSteps", int64(s.SubagentSteps)}, {"MaxCallsPerReply", int64(s.MaxCallsPerReply)},
		{"Timeout", int64(s.Timeout)}, {"CommandTimeout", int64(s.CommandTimeout)}, {"Backoff", int64(s.Backoff)},
		{"RetryBudget", int64(s.RetryBudget)}, {"BreakerFailures", int64(s.BreakerFailures)}, {"BreakerCool", int64(s.BreakerCool)},
	} {
		if n.v < 0 {
			return bad(n.field, "must not be negative, got %s", show(n.field, n.v))
		}
	}
	if s.Retries != nil && *s.Retries < 0 {
		return bad("Retries", "must not be negative, got %d", *s.Retries)
	}
	for field, d := range map[string]*Duration{"Stall": s.Stall, "CallTimeout": s.CallTimeout} {
		if d != nil && *d < 0 {
			return bad(field, "must not be negative, got %s", d.D())
		}
	}
	if s.LoopLimit != nil && *s.LoopLimit < -1 {
		return bad("LoopLimit", "is N repeats, 0 for the default (3) or -1 for off, got %d", *s.LoopLimit)
	}
	switch {
	case math.IsNaN(s.BudgetUSD) || math.IsInf(s.BudgetUSD, 0):
		return bad("BudgetUSD", "is %g: want a number of dollars such as 0.50", s.BudgetUSD)
	case s.BudgetUSD < 0:
		return bad("BudgetUSD", "must not be negative, got %g", s.BudgetUSD)
	}
	if s.Provider != "" && !IsProvider(s.Provider) {
		return bad("Provider", "unknown provider %q: use %s", s.Provider, ProviderList())
	}
	switch s.MaxTokensField {
	case "", "max_tokens", "max_completion_tokens":
	default:
		return bad("MaxTokensField", "%q: write max_tokens or max_completion_tokens", s.MaxTokensField)
	}
	for _, m := range []struct{ field, ref string }{{"FallbackModel", s.FallbackModel}, {"JudgeModel", s.JudgeModel}} {
		if _, _, err := ParseModelRef(m.ref); err != nil {
			return bad(m.field, "%v", err)
		}
	}
	if s.FallbackOn != "" && s.FallbackOn != "quota" {
		return bad("FallbackOn", "is %q: the only choice is quota (timing failures and empty answers always fall back)", s.FallbackOn)
	}
	if s.NoJudge && s.JudgeModel != "" {
		return bad("NoJudge", "and a judge model cannot be given together: drop one")
	}
	if _, err := sandbox.ParseMode(s.Sandbox); err != nil {
		return bad("Sandbox", "is %q: want %s", s.Sandbox, sandbox.Modes)
	}
	for _, a := range s.Approve {
		if err := gate.CheckSpec(a); err != nil {
			return bad("Approve", "%q: %v", a, err)
		}
	}
	for _, c := range s.Checks {
		if _, err := verify.ParseRule(c, base); err != nil {
			return bad("Checks", "%v", err)
		}
	}
	if s.MaxFileSize != "" {
		if _, err := fs.ParseSize(s.MaxFileSize); err != nil {
			return bad("MaxFileSize", "%v", err)
		}
	}
	if s.Keep && s.RollbackOnInterrupt {
		return bad("Keep", "and rollback on interrupt cannot both be on: drop one")
	}
	return nil
}

// show prints a negative value of field as a person wrote it.
func show(field string, v int64) string {
	switch field {
	case "Timeout", "CommandTimeout", "Backoff", "RetryBudget", "BreakerCool":
		return Duration(v).D().String()
	}
	return fmt.Sprint(v)
}
