package night

import (
	"fmt"
	"slices"

	"github.com/nightshift-dev/nightshift/ledger"
)

// Kind names a kind of failure the rules table charges.
type Kind string

// The kinds of failure, closed: the rules table has a row for each.
const (
	// FailedStep: an attempt ended without its work done (unverified,
	// step-limit, truncated, a rejected request, a harness error).
	FailedStep Kind = "failed-step"
	// EmptyAnswer: a step returned nothing. It is a failed step and is
	// recorded as one (seed 003: "a call that returns nothing writes no
	// step, and the rule counted steps").
	EmptyAnswer Kind = "empty-answer"
	// SecondFailure: the worker's second failed step of the night on a
	// different task.
	SecondFailure Kind = "second-failure"
	// QuotaRefused: a provider refused on spend or quota.
	QuotaRefused Kind = "quota"
	// BudgetSpent: the worker's own token budget for the night ran out.
	BudgetSpent Kind = "budget"
	// NoTask: a failure before any task was chosen: the worker could not
	// even start (a builder attempt that failed before its first model
	// call).
	NoTask Kind = "no-task"
	// APIDown: retries were exhausted on wrong-timing errors (the
	// provider stayed down).
	APIDown Kind = "api-down"
	// AuthFailed: the provider refused the credentials.
	AuthFailed Kind = "auth"
	// ConfigError: the configuration cannot work (a model that cannot be
	// built, a bad model name).
	ConfigError Kind = "config"
	// AttemptBudget: a builder attempt reached its own budget (the
	// lifecycle's Budget) before its work was done. It is a failed step of
	// the task, not the worker's night budget.
	AttemptBudget Kind = "attempt-budget"
	// AttemptTimeout: a builder attempt ran past its time limit.
	AttemptTimeout Kind = "attempt-timeout"
	// Loop: the loop detector ended the attempt (the same tool call, the
	// same result, again and again).
	Loop Kind = "loop"
	// ParkDeadline: a parked task's deadline passed with no answer.
	ParkDeadline Kind = "park-deadline"
	// Denied: a person denied a parked task's action.
	Denied Kind = "denied"
	// ByHand: a person recorded a failure (`nightshift task fail`).
	ByHand Kind = "by-hand"
	// WaitingForProvider: an attempt ended unavailable, its endpoint's
	// circuit breaker open past the retry budget (package breaker): the
	// provider is down, not the task. Charged once per outage; the worker
	// sits out while the breaker is open (provider.go).
	WaitingForProvider Kind = "waiting-for-provider"
)

var kinds = []Kind{FailedStep, EmptyAnswer, SecondFailure, QuotaRefused, BudgetSpent, NoTask, APIDown, AuthFailed, ConfigError,
	AttemptBudget, AttemptTimeout, Loop, ParkDeadline, Denied, ByHand, WaitingForProvider}

// failedStep reports whether k is a failed step of a task: what counts
// toward a worker's second failure of the night and a task's escalation.
func (k Kind) failedStep() bool {
	switch k {
	case FailedStep, EmptyAnswer, AttemptBudget, AttemptTimeout, Loop:
		return true
	}
	return false
}

// Rule is one row of the rules table: a kind of failure, optionally for
// one role only, the scope it is charged to, and why.
type Rule struct {
	Kind Kind `yaml:"failure"`
	// Role limits the row to one role; empty means every role.
	Role   ledger.Role  `yaml:"role,omitempty"`
	Scope  ledger.Scope `yaml:"scope"`
	Reason string       `yaml:"reason"`
}

// DefaultRules are the defaults of seed 003 (the fix of 21 October). A
// role-specific row wins over a row for every role.
var DefaultRules = []Rule{
	{Kind: FailedStep, Scope: ledger.TaskScope,
		Reason: "a failed step costs its task the night, not the worker: the task goes on tonight's skip list"},
	{Kind: EmptyAnswer, Scope: ledger.TaskScope,
		Reason: "an empty answer is a failed step, recorded as one: the task goes on tonight's skip list"},
	// The proposer and the judge have no task to charge: their failed
	// call is lost, and the next step tries again.
	{Kind: FailedStep, Role: ledger.Proposer, Scope: ledger.CallScope, Reason: "a failed proposer call is lost; the next step tries again"},
	{Kind: EmptyAnswer, Role: ledger.Proposer, Scope: ledger.CallScope, Reason: "an empty proposer answer is a failed call; the next step tries again"},
	{Kind: FailedStep, Role: ledger.Judge, Scope: ledger.CallScope, Reason: "a failed judge call is lost; the next step tries again"},
	{Kind: EmptyAnswer, Role: ledger.Judge, Scope: ledger.CallScope, Reason: "an empty judge answer is a failed call; the next step tries again"},
	{Kind: SecondFailure, Scope: ledger.WorkerScope,
		Reason: "a second failed step in one night on a different task points at the worker, not the task (two is the smallest number that tells them apart)"},
	{Kind: QuotaRefused, Scope: ledger.WorkerScope, Reason: "a spend or quota refusal: carrying on only burns calls"},
	{Kind: BudgetSpent, Scope: ledger.WorkerScope, Reason: "the worker's own token budget for the night is spent"},
	{Kind: AttemptBudget, Scope: ledger.TaskScope,
		Reason: "the attempt reached its own budget before its work was done: a failed step of the task, not the worker's night budget"},
	{Kind: AttemptTimeout, Scope: ledger.TaskScope, Reason: "the attempt ran past its time limit: a failed step of the task"},
	{Kind: Loop, Scope: ledger.TaskScope, Reason: "the attempt kept making the same call for the same result: a failed step of the task"},
	{Kind: NoTask, Scope: ledger.WorkerScope, Reason: "a failure before any task was chosen points at the worker"},
	{Kind: APIDown, Scope: ledger.WorkerScope, Reason: "the provider stayed down through every retry; the role goes on with its next model"},
	{Kind: WaitingForProvider, Scope: ledger.WorkerScope,
		Reason: "waiting for the provider: its endpoint's circuit breaker is open; the worker sits out until it closes, and no task is charged"},
	{Kind: AuthFailed, Scope: ledger.SystemScope, Reason: "the provider refused the credentials: a person must fix them"},
	{Kind: ConfigError, Scope: ledger.SystemScope, Reason: "the configuration cannot work: a person must fix it"},
	// The failures the ledger records itself go through the table too
	// (ledger.Charge), so a pipeline file can change their scope.
	{Kind: ParkDeadline, Scope: ledger.TaskScope, Reason: "nobody answered the parked task in time: the task, not the worker"},
	{Kind: Denied, Scope: ledger.TaskScope, Reason: "a person denied the parked task's action: the task, not the worker"},
	{Kind: ByHand, Scope: ledger.TaskScope, Reason: "a person failed the task by hand"},
}

// Rules is a rules table.
type Rules []Rule

// Ledger is the charge of a failure of kind k in role r that the ledger
// records itself (a parking deadline, a denial, a failure by hand): the
// table's row for it, as ledger.Charge.
func (rs Rules) Ledger(k Kind, r ledger.Role) ledger.Charge {
	row := rs.Charge(k, r)
	return ledger.Charge{Scope: row.Scope, Rule: string(k), Why: row.Reason}
}

// RulesWith returns the default table with overrides replacing the rows
// they match (same failure and role) or added after them.
func RulesWith(overrides []Rule) (Rules, error) {
	out := slices.Clone(DefaultRules)
	for _, o := range overrides {
		if !slices.Contains(kinds, o.Kind) {
			return nil, fmt.Errorf("rules: unknown failure %q (%v)", o.Kind, kinds)
		}
		if !slices.Contains(ledger.Scopes, o.Scope) {
			return nil, fmt.Errorf("rules: failure %s: unknown scope %q (%v)", o.Kind, o.Scope, ledger.Scopes)
		}
		if o.Role != "" && !o.Role.Valid() {
			return nil, fmt.Errorf("rules: failure %s: unknown role %q", o.Kind, o.Role)
		}
		if o.Reason == "" {
			return nil, fmt.Errorf("rules: failure %s: every rule says why (reason)", o.Kind)
		}
		i := slices.IndexFunc(out, func(r Rule) bool { return r.Kind == o.Kind && r.Role == o.Role })
		if i >= 0 {
			out[i] = o
		} else {
			out = append(out, o)
		}
	}
	return out, nil
}

// Charge returns the row that charges a failure of kind k in role r: the
// role's own row if there is one, else the row for every role. A kind with
// no row is charged to the task, the smallest scope that is never wrong to
// try again.
func (rs Rules) Charge(k Kind, r ledger.Role) Rule {
	for _, x := range rs {
		if x.Kind == k && x.Role == r {
			return x
		}
	}
	for _, x := range rs {
		if x.Kind == k && x.Role == "" {
			return x
		}
	}
	return Rule{Kind: k, Scope: ledger.TaskScope, Reason: "no rule for this failure: charged to the task"}
}
