package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/tool"
)

// Action is one tool call waiting at the gate.
type Action struct {
	// Run is the run's ID, for the audit log.
	Run string
	// Tool is the tool's name and Class its side-effect class.
	Tool  string
	Class tool.Class
	// Input is the call's input, as the model sent it.
	Input json.RawMessage
	// Summary is one line for the audit log, such as "write_file a.md
	// (120 bytes, new file)". Check fills it when empty.
	Summary string
	// Preview is what a person is shown before saying yes: the path and
	// size of a write, the diff of an edit, the command line. Check fills
	// it when empty.
	Preview string
}

// By says who made a decision.
type By string

// Who decides.
const (
	// ByPolicy is the policy: a rule said allow or deny, or a rule said
	// ask and nobody was there to ask.
	ByPolicy By = "policy"
	// ByPerson is a person who answered at the terminal.
	ByPerson By = "person"
	// ByApproval is an approval given earlier for the same call (same
	// tool, same input), for example to a parked task.
	ByApproval By = "approval"
	// BySchema is the tool set: the call named no tool of the run, or its
	// input did not match the tool's schema. Its decision is Reject.
	BySchema By = "schema"
	// ByRun is the run itself: the call was allowed, but what must happen
	// before it runs (the capture of the workspace for rollback) failed.
	// Its decision is Refuse.
	ByRun By = "run"
)

// Verdict is the gate's answer for one call.
type Verdict struct {
	// Decision is Allow or Deny.
	Decision Decision
	By       By
	// Reason says why, in words a model and a person can act on.
	Reason string
}

// Allowed reports whether the call may run.
func (v Verdict) Allowed() bool { return v.Decision == Allow }

// Result is what the model reads instead of the tool's result when the
// call was refused: an error that says so and by whom, so that the model
// can take another way.
func (v Verdict) Result(toolName string) tool.Result {
	return tool.Error(fmt.Sprintf("refused: %s was not run; %s", toolName, v.Reason))
}

// ErrParked means that the call waits for a person who is not there now
// (an unattended night): the task should be parked, with the call, until
// someone approves it. A *ParkedError carries the call.
var ErrParked = errors.New("gate: parked until a person approves")

// ParkedError is the call a task was parked on. It matches ErrParked
// with errors.Is.
type ParkedError struct {
	Action Action
}

func (e *ParkedError) Error() string {
	return fmt.Sprintf("gate: parked until a person approves %s", e.Action.Summary)
}

// Is makes errors.Is(err, ErrParked) true.
func (e *ParkedError) Is(target error) bool { return target == ErrParked }

// Config configures a Gate.
type Config struct {
	// Policy decides each call. The zero Policy is the default,
	// read=allow,write=allow,danger=ask.
	Policy Policy
	// Asker asks a person when the policy says ask. Nil means nobody can
	// be asked (no terminal): ask is then a deny, never a silent allow.
	Asker Asker
	// Approved holds calls approved beforehand; such a call is allowed
	// where the policy says ask (a deny stays a deny). Nil means none. A
	// person's yes is added to it, so the same call is not asked twice.
	Approved *Approvals
	// Audit receives every decision. Nil means no audit log.
	Audit Auditor
	// Files is the workspace, read to preview edits and writes. Nil
	// means previews that do not read files.
	Files fs.FS
	// Clock stamps the audit entries. Nil means the wall clock.
	Clock clock.Clock
	// Redact replaces the credentials in a call's input before its
	// summary is made: the audit log's summary is cut to 200
	// characters, and a key cut first is a key no redactor matches
	// whole (a redact.Redactor's String). Nil leaves the input as it is.
	Redact func(string) string
}

// Gate decides, before any tool runs, whether it may. It is safe for
// concurrent use if its Asker and Auditor are.
type Gate struct {
	cfg Config
}

// New returns a gate.
func New(cfg Config) *Gate {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Approved == nil {
		cfg.Approved = NewApprovals()
	}
	return &Gate{cfg: cfg}
}

// Policy returns the gate's policy.
func (g *Gate) Policy() Policy { return g.cfg.Policy }

// Check decides on a and writes the decision to the audit log. It returns
// an error only when the call cannot be decided now: the Asker parked it
// (a *ParkedError), ctx ended, asking failed, or the audit log could not
// be written (the verdict is then a deny: an unaudited call does not run).
func (g *Gate) Check(ctx context.Context, a Action) (Verdict, error) {
	return g.CheckThen(ctx, a, nil)
}

// CheckThen is Check with a step that must succeed before an allowed call
// runs (the journal's capture of the workspace, so that what a command
// changes can be rolled back). prepare runs after the decision and before
// it is audited: when it fails, the call is not run, and the audit log
// says it was refused by the run (ByRun, decision Refuse) and why, not
// that it was allowed. Nil prepare is Check.
func (g *Gate) CheckThen(ctx context.Context, a Action, prepare func(context.Context) error) (Verdict, error) {
	a = g.described(a)
	v, err := g.decide(ctx, a)
	if err == nil && v.Allowed() && prepare != nil {
		if perr := prepare(ctx); perr != nil {
			v = Verdict{Decision: Refuse, By: ByRun, Reason: perr.Error()}
		}
	}
	if errors.Is(err, ErrParked) {
		if aerr := g.audit(a, "park", ByPolicy, "waits for a person's approval"); aerr != nil {
			return Verdict{Decision: Deny, By: ByPolicy, Reason: "the audit log could not be written"}, aerr
		}
		return v, &ParkedError{Action: a}
	}
	if err != nil {
		return v, err
	}
	if err := g.audit(a, string(v.Decision), v.By, v.Reason); err != nil {
		return Verdict{Decision: Deny, By: ByPolicy, Reason: "the audit log could not be written"}, err
	}
	return v, nil
}

// Reject audits a call that never reached the policy because it could not
// run: it named no tool of the run, or its input did not match the
// tool's schema. reason is what the model was told. The audit log then
// shows the call as rejected (BySchema, decision Reject), not allowed.
func (g *Gate) Reject(a Action, reason string) error {
	a = g.described(a)
	return g.audit(a, string(Reject), BySchema, reason)
}

// described fills a's summary and preview when they are empty.
func (g *Gate) described(a Action) Action {
	if a.Summary == "" || a.Preview == "" {
		sum, pre := Describe(g.cfg.Files, a.Tool, a.Input)
		// The summary is cut, so it is made from the redacted input. The
		// preview is not: a person approving a write is shown its true
		// diff (the terminal's writer redacts what it shows).
		if g.cfg.Redact != nil {
			if red := g.cfg.Redact(string(a.Input)); red != string(a.Input) {
				sum, _ = Describe(g.cfg.Files, a.Tool, json.RawMessage(red))
			}
		}
		a.Summary = cmpOr(a.Summary, sum)
		a.Preview = cmpOr(a.Preview, pre)
	}
	return a
}

func (g *Gate) decide(ctx context.Context, a Action) (Verdict, error) {
	rule := g.cfg.Policy.Rule(a.Tool, a.Class)
	switch g.cfg.Policy.Decide(a.Tool, a.Class) {
	case Allow:
		return Verdict{Decision: Allow, By: ByPolicy, Reason: "allowed by the rule " + rule}, nil
	case Deny:
		return Verdict{Decision: Deny, By: ByPolicy, Reason: "refused by policy (rule " + rule + "); take another way"}, nil
	}
	if g.cfg.Approved.Approved(a) {
		return Verdict{Decision: Allow, By: ByApproval, Reason: "approved earlier (rule " + rule + ")"}, nil
	}
	if g.cfg.Asker == nil {
		return Verdict{Decision: Deny, By: ByPolicy, Reason: "refused by policy: the rule " + rule +
			" needs a person's approval and no terminal is attached to ask one; take another way"}, nil
	}
	ans, err := g.cfg.Asker.Ask(ctx, a)
	if err != nil {
		return Verdict{Decision: Deny, By: ByPolicy}, err
	}
	switch ans {
	case Yes:
		g.cfg.Approved.Approve(a)
		return Verdict{Decision: Allow, By: ByPerson, Reason: "approved by the person at the terminal"}, nil
	case Park:
		return Verdict{Decision: Deny, By: ByPolicy, Reason: "parked until a person approves"}, ErrParked
	}
	return Verdict{Decision: Deny, By: ByPerson, Reason: "refused by the person at the terminal; take another way"}, nil
}

func (g *Gate) audit(a Action, decision string, by By, reason string) error {
	if g.cfg.Audit == nil {
		return nil
	}
	return g.cfg.Audit.Record(Entry{
		Time:     g.cfg.Clock.Now().UTC(),
		Run:      a.Run,
		Tool:     a.Tool,
		Class:    a.Class,
		Input:    a.Summary,
		Decision: decision,
		By:       by,
		Reason:   reason,
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
