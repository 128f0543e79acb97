package verify

import (
	"cmp"
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
	// Ran lists the run's tool calls that may have changed something,
	// in order: its commands with how each ended, its file tools' writes,
	// and the tools the claims check cannot see into (see Ran). A claim
	// that the tests pass is read against them. Nil means the run's calls
	// are not known (a caller that is not a run), and such claims are
	// left to the judge; a run that ran nothing gives an empty, non-nil
	// list.
	Ran []Ran
	// Unchecked lists the claims of the answer that code could not
	// check, as the judge is shown them. The Verifier fills it from its
	// claims check; a caller of Judge alone may set it.
	Unchecked []string
}

// Open returns the workspace's files, Files or Dir opened as a
// workspace, and the function that closes what it opened: what a check
// outside this package reads through, under the workspace's rules.
func (in Input) Open() (fs.FS, func(), error) { return in.files() }

// Failure is one failed check.
type Failure struct {
	// Check names the kind of check that failed: "not-empty",
	// "min-chars", "cmd", "judge", ...
	Check string
	// Message says what was measured beside what was required, for
	// example "min-chars post.md: 3341 < 4000". It is what goes back to
	// the worker.
	Message string
	// Detail, when set, is how the verify event's line says it, where
	// that differs from what the worker is told (a false claim: "claims:
	// post.md has 3,341 characters, not 3,847"). Empty means Message.
	Detail string
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
	// Detail joins the failures as the verify event's line says them
	// (each Failure's Detail, or its Message), when one of them words it
	// differently from the feedback; empty means Reason.
	Detail string
	// Claims lists every claim the claims check found in the answer,
	// with its verdict; nil when there was no claims check.
	Claims []Claim
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
	// Claims checks the answer's own claims by code, with the rules and
	// before the judge: a false claim is a FAIL with the real figure, and
	// the claims it could not check are shown to the judge. Nil means no
	// claims check; the run lifecycle gives every run package
	// verify/claims's unless NoClaims.
	Claims ClaimChecker
	// NoClaims switches the claims check off where the run lifecycle
	// would give it by default (--no-claims, claims: false).
	NoClaims bool
	// Judge is asked only when every rule and claim passed. Nil leaves
	// only the rules (--no-judge).
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
		verdict.Detail = v.Redact(verdict.Detail)
		for i := range verdict.Failures {
			verdict.Failures[i].Message = v.Redact(verdict.Failures[i].Message)
			verdict.Failures[i].Detail = v.Redact(verdict.Failures[i].Detail)
		}
		for i := range verdict.Claims {
			c := &verdict.Claims[i]
			c.Text, c.Path, c.Said, c.Measured = v.Redact(c.Text), v.Redact(c.Path), v.Redact(c.Said), v.Redact(c.Measured)
			c.Feedback, c.Fact = v.Redact(c.Feedback), v.Redact(c.Fact)
		}
	}
	return verdict, usage, err
}

func (v *Verifier) verify(ctx context.Context, in Input, rules []Rule) (Verdict, llm.Usage, error) {
	var fails []Failure
	failed := make([]bool, len(rules))
	for i, r := range rules {
		if f := r.Check(ctx, in); f != nil {
			fails = append(fails, *f)
			failed[i] = true
		}
		if err := ctx.Err(); err != nil {
			// A rule cut short by cancellation proves nothing either way.
			return Verdict{}, llm.Usage{}, err
		}
	}
	// The claims run with the rules, so that a false claim and a failed
	// rule go back in one FAIL; not on an empty answer, which has none.
	var claims []Claim
	if !failed[0] {
		var claimFails []Failure
		claims, claimFails, in.Unchecked = v.checkClaims(ctx, in, rules, failed)
		fails = append(fails, claimFails...)
		if err := ctx.Err(); err != nil {
			return Verdict{}, llm.Usage{}, err
		}
	}
	if len(fails) > 0 {
		verdict := failVerdict(fails[0].Check, fails)
		verdict.Claims = claims
		return verdict, llm.Usage{}, nil
	}
	if v.Judge == nil {
		return Verdict{Pass: true, Check: "rules", Claims: claims}, llm.Usage{}, nil
	}
	j := v.Judge
	if j.Redact == nil && v.Redact != nil {
		jj := *j
		jj.Redact = v.Redact
		j = &jj
	}
	verdict, usage, err := j.Judge(ctx, in)
	verdict.Claims = claims
	return verdict, usage, err
}

// failVerdict builds a FAIL decided by check.
func failVerdict(check string, fails []Failure) Verdict {
	msgs := make([]string, len(fails))
	details := make([]string, len(fails))
	worded := false
	for i, f := range fails {
		msgs[i] = f.Message
		details[i] = cmp.Or(f.Detail, f.Message)
		worded = worded || f.Detail != ""
	}
	v := Verdict{Check: check, Failures: fails, Reason: strings.Join(msgs, "; ")}
	if worded {
		v.Detail = strings.Join(details, "; ")
	}
	return v
}
