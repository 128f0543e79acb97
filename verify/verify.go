package verify

import (
	"context"
	"io/fs"
	"strings"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/sandbox"
)

// Input is what a verification looks at: the task, the worker's final
// answer, and the workspace with the files the run changed.
type Input struct {
	// Task is the task text.
	Task string
	// Answer is the worker's final answer.
	Answer string
	// Dir is the absolute workspace root. Rule paths are relative to it
	// and never leave it; cmd: checks run in it.
	Dir string
	// Files are the workspace's files, which the rules and the judge
	// read: a run's workspace.Root.FS(), so that they keep the
	// workspace's rules (no symlink that leads out, no FIFO, no state
	// folder). Nil opens Dir with workspace.Open.
	Files fs.FS
	// Changed lists the workspace-relative paths the run changed. Their
	// final content goes to the judge; a path that no longer exists is
	// shown as deleted.
	Changed []string
	// Commands starts the cmd: checks: the run's sandbox, the one
	// run_command uses. Nil means Verifier.Commands, and when that is nil
	// too, a sandbox of mode auto for Dir.
	Commands *sandbox.Sandbox
}

// Failure is one failed check.
type Failure struct {
	// Check names the kind of check that failed: "not-empty",
	// "min-chars", "cmd", "judge", ...
	Check string
	// Message says what was measured beside what was required, for
	// example "min-chars post.md: 3341 < 4000".
	Message string
}

// Verdict is the outcome of one verification.
type Verdict struct {
	// Pass is true when every rule and the judge (if any) passed.
	Pass bool
	// Check names the check that decided: "judge" when the judge ruled,
	// the first failing rule's name when a rule failed, and "rules" when
	// every rule passed and no judge was asked.
	Check string
	// Failures lists every failed check, in the order they ran.
	Failures []Failure
	// Reason joins the failure messages with "; ", ready for the
	// "[verifier] FAIL: <reason>" feedback. On a judge PASS it holds the
	// judge's stated reason; on a rules-only PASS it is empty.
	Reason string
}

// Rule is one code-checked condition. Rules never call a model.
type Rule interface {
	// Name is the rule's kind, for example "min-chars"; failures and
	// summaries are counted by it.
	Name() string
	// Check returns nil when the rule holds, and otherwise a failure
	// whose message states the measured figure beside the required one.
	Check(ctx context.Context, in Input) *Failure
}

// Verifier runs the rules, then the judge.
type Verifier struct {
	// Rules are the task's rules. NotEmpty always runs first, whether or
	// not it is listed here.
	Rules []Rule
	// Judge is asked only when every rule passed. Nil leaves only the
	// rules (--no-judge).
	Judge *Judge
	// Commands starts the cmd: checks when the Input names no sandbox of
	// its own (see Input.Commands).
	Commands *sandbox.Sandbox
	// Redact, when set, rewrites every failure message and reason before
	// it goes back to the worker, into events or into records (a check's
	// output can hold a secret), and what the judge is sent (see
	// Judge.Redact). Nil leaves them as they are.
	Redact func(string) string
}

// Verify runs every rule, so that all their failures go back in one FAIL,
// and asks the judge only when all of them passed: the judge costs a model
// call, and whatever a rule can catch should not be left to it (seed 000,
// section 3.3). The error is non-nil only when ctx ended or the judge's
// call failed; a failed check is a Verdict, not an error.
func (v *Verifier) Verify(ctx context.Context, in Input) (Verdict, llm.Usage, error) {
	rules := make([]Rule, 0, len(v.Rules)+1)
	rules = append(rules, NotEmpty())
	for _, r := range v.Rules {
		if r.Name() != notEmptyName {
			rules = append(rules, r)
		}
	}
	if in.Commands == nil {
		in.Commands = v.Commands
	}
	verdict, usage, err := v.verify(ctx, in, rules)
	if v.Redact != nil {
		verdict.Reason = v.Redact(verdict.Reason)
		for i := range verdict.Failures {
			verdict.Failures[i].Message = v.Redact(verdict.Failures[i].Message)
		}
	}
	return verdict, usage, err
}

func (v *Verifier) verify(ctx context.Context, in Input, rules []Rule) (Verdict, llm.Usage, error) {
	var fails []Failure
	for _, r := range rules {
		if f := r.Check(ctx, in); f != nil {
			fails = append(fails, *f)
		}
		if err := ctx.Err(); err != nil {
			// A rule cut short by cancellation proves nothing either way.
			return Verdict{}, llm.Usage{}, err
		}
	}
	if len(fails) > 0 {
		return failVerdict(fails[0].Check, fails), llm.Usage{}, nil
	}
	if v.Judge == nil {
		return Verdict{Pass: true, Check: "rules"}, llm.Usage{}, nil
	}
	j := v.Judge
	if j.Redact == nil && v.Redact != nil {
		jj := *j
		jj.Redact = v.Redact
		j = &jj
	}
	return j.Judge(ctx, in)
}

// failVerdict builds a FAIL decided by check.
func failVerdict(check string, fails []Failure) Verdict {
	msgs := make([]string, len(fails))
	for i, f := range fails {
		msgs[i] = f.Message
	}
	return Verdict{Check: check, Failures: fails, Reason: strings.Join(msgs, "; ")}
}
