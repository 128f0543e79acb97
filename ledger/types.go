package ledger

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/runspec"
)

// Role is a part of the night's pipeline (seed 003): the proposer adds ideas,
// the judge scores them, the builder works on them.
type Role string

// The three roles.
const (
	Proposer Role = "proposer"
	Judge    Role = "judge"
	Builder  Role = "builder"
)

// Roles lists the roles in pipeline order.
var Roles = []Role{Proposer, Judge, Builder}

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r == Proposer || r == Judge || r == Builder }

// TaskState is where a task stands across nights.
type TaskState string

// Task states. A task skipped tonight stays Queued: the skip list is
// tonight's failures, not a state.
const (
	Queued  TaskState = "queued"
	Claimed TaskState = "claimed"
	Done    TaskState = "done"
	Failed  TaskState = "failed"
	Parked  TaskState = "parked"
)

// Task is one idea in the backlog.
type Task struct {
	ID     int64   `json:"id"`
	Title  string  `json:"title"`
	Body   string  `json:"body,omitempty"`
	Source string  `json:"source"`
	Score  float64 `json:"score"`
	// Scored is false until a judge (or a person) gave a score.
	Scored bool      `json:"scored"`
	State  TaskState `json:"state"`
	// Level is the index of the builder model the task is given to; it
	// grows when the task fails twice with the same model (escalation).
	Level int `json:"level"`
	// Front puts the task before every scored one: an approved or
	// interrupted task goes next.
	Front bool `json:"front"`
	// Verify are the task's own verify keys, over the builder role's
	// (night): its checks added to the role's, its rubric, no_judge,
	// judge_model (a model under the pipeline's models),
	// max_verify_rounds and output_schema instead of the role's where
	// set. Nil: the role's alone.
	Verify    *TaskVerify `json:"verify,omitempty"`
	CreatedAt time.Time   `json:"created_at"`
	UpdatedAt time.Time   `json:"updated_at"`
}

// TaskVerify is a task's own verify keys: the run spec's verify group
// (runspec.Verify, the one declaration of those keys) and the content of
// its output schema, read when the task was added, so that an attempt is
// checked by what the person gave and never by a file read again later.
type TaskVerify struct {
	runspec.Verify
	// Schema is output_schema's content (OutputSchema names where it was
	// read from).
	Schema json.RawMessage `json:"schema,omitempty"`
}

// NewTask is a task to add.
type NewTask struct {
	Title string
	Body  string
	// Source says who added it: "person" (the default) or "proposer".
	Source string
	// Score, when set, scores the task at once.
	Score *float64
	// Verify are the task's own verify keys (Task.Verify); nil: none.
	Verify *TaskVerify
}

// StepState is how a step stands.
type StepState string

// Step states.
const (
	Running     StepState = "running"
	Finished    StepState = "finished"
	StepFailed  StepState = "failed"
	StepParked  StepState = "parked"
	Interrupted StepState = "interrupted"
)

// Step is one unit of a role's work: one model call for the proposer and the
// judge, one attempt at one task (a whole agent run) for the builder.
type Step struct {
	ID     int64     `json:"id"`
	Night  int64     `json:"night"`
	Role   Role      `json:"role"`
	Worker string    `json:"worker"`
	Level  int       `json:"level"`
	Task   int64     `json:"task,omitempty"`
	Job    int64     `json:"job"`
	Owner  string    `json:"owner"`
	State  StepState `json:"state"`
	// Outcome is the agent's outcome for a builder step ("done",
	// "unverified", ...), or "ok"/"empty"/"error" for a model call.
	Outcome string   `json:"outcome,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	Answer  string   `json:"answer,omitempty"`
	Checks  []string `json:"failed_checks,omitempty"`
	// Tokens are the step's input and output tokens, every call of it
	// (a builder attempt's judge too); CacheWriteTokens and
	// CacheReadTokens are the input tokens written to and read from the
	// provider's prompt cache, among them.
	Tokens           int64 `json:"tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	// Cost is what the step's calls cost by the model table (llm/models):
	// Unknown (NULL in the ledger, null in JSON) when one of them could
	// not be priced, when the step is still running, and for steps
	// recorded by earlier versions; never 0 for unknown.
	Cost      models.Cost `json:"cost_usd"`
	StartedAt time.Time   `json:"started_at"`
	EndedAt   time.Time   `json:"ended_at"`
	// Pending is set on an interrupted builder step whose changes stay in
	// its task's workspace, its journal pending on its owner's machine,
	// until the owner continues it (a later step with Continues set) or,
	// its lease run out, another process retries the task from its start.
	Pending bool `json:"pending,omitempty"`
	// Continues is the interrupted step this step continues.
	Continues int64 `json:"continues,omitempty"`
	// LeaseUntil is when the step's lease runs out, by the wall clock:
	// until then no process of another owner takes it over.
	LeaseUntil time.Time `json:"lease_until"`
	// ContJob is the River job that continues a pending step, in its
	// owner's queue.
	ContJob int64 `json:"-"`
}

// Scope is what a failure is charged to (DESIGN.md, failure scopes).
type Scope string

// The scopes, smallest first.
const (
	CallScope   Scope = "call"
	TaskScope   Scope = "task"
	WorkerScope Scope = "worker"
	NightScope  Scope = "night"
	SystemScope Scope = "system"
)

// Scopes lists the scopes, smallest first.
var Scopes = []Scope{CallScope, TaskScope, WorkerScope, NightScope, SystemScope}

// Failure is one failure with the scope it was charged to and why.
type Failure struct {
	ID     int64  `json:"id"`
	Night  int64  `json:"night"`
	Step   int64  `json:"step,omitempty"`
	Task   int64  `json:"task,omitempty"`
	Role   Role   `json:"role,omitempty"`
	Worker string `json:"worker,omitempty"`
	// Level is the task's builder level when it failed (escalation counts
	// failures per level).
	Level int   `json:"level"`
	Scope Scope `json:"scope"`
	// Rule names the rules-table row that charged it.
	Rule   string    `json:"rule,omitempty"`
	Reason string    `json:"reason"`
	Manual bool      `json:"manual,omitempty"`
	At     time.Time `json:"at"`
}

// EndKind is how a night ended.
type EndKind string

// Night end kinds. Seed 003's second number, nights that end before the
// clock runs out, is two numbers kept apart: a night cut short by failure
// handling (CutShort, SystemStopped) says something is wrong; a night out
// of work (OutOfWork) only that the backlog ran dry. A spent night budget
// is CeilingsReached, neither.
const (
	WindowClosed    EndKind = "window-closed"
	CeilingsReached EndKind = "ceilings-reached"
	// CutShort: every worker of a role is out, or a night-scope failure.
	CutShort EndKind = "cut-short"
	// OutOfWork: nothing takeable, and no answer a person could give in
	// the window would change that.
	OutOfWork EndKind = "out-of-work"
	// SystemStopped: a system-scope failure; a person must act, then
	// `nightshift night` in the same window resumes the night.
	SystemStopped EndKind = "system-stopped"
	// ProviderDown: the window closed while every worker of a role that
	// was not out waited for its provider (its endpoint's circuit
	// breaker open): neither cut short nor out of work.
	ProviderDown EndKind = "provider-down"
	// EndedEarly is how earlier versions recorded both CutShort and
	// OutOfWork; Night.CutShort tells them apart by the reason.
	EndedEarly EndKind = "ended-early"
)

// Night is one run of the pipeline through a window.
type Night struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	StartedAt   time.Time `json:"started_at"`
	// EndedAt is zero while the night runs.
	EndedAt time.Time `json:"ended_at"`
	End     EndKind   `json:"end,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	// Reserved counts the steps each role has claimed (the ceilings
	// read it); interrupted steps are given back.
	Reserved map[Role]int `json:"reserved"`
	// Stops are the system stops the night was resumed after, in order.
	Stops []Stop `json:"stops,omitempty"`
	// Spend is what the night's steps spent, all roles and processes
	// together: tokens, the prompt cache's share, and the cost (unknown
	// when any step's is). Ledger.NightSpend has it per worker.
	Spend Spend `json:"spend"`
	// Epoch counts the night's resumptions; processes join each epoch
	// with their step chains.
	Epoch int `json:"-"`
	// stopMark is the last failure before the latest resumption: the
	// stops it names are over.
	stopMark int64
	// idleChains counts the night's chains waiting for a step in flight
	// to be recorded (Plan.Idle).
	idleChains int
}

// Stop is a system stop that a night was resumed after: how it ended
// then, and when `nightshift night` resumed it.
type Stop struct {
	At        time.Time `json:"at"`
	End       EndKind   `json:"end"`
	Reason    string    `json:"reason"`
	ResumedAt time.Time `json:"resumed_at"`
	// Owner is the process that resumed it.
	Owner string `json:"owner"`
}

// Ended reports whether the night has ended.
func (n Night) Ended() bool { return !n.EndedAt.IsZero() }

// StopMark is the ID of the last failure recorded before the night was
// last resumed: night- and system-scope failures up to it stopped the
// night before and do not stop it again.
func (n Night) StopMark() int64 { return n.stopMark }

// CutShort reports whether failure handling cut the night short: a system
// stop (even one it was resumed after), every worker of a role out, or a
// night-scope failure.
func (n Night) CutShort() bool {
	switch {
	case len(n.Stops) > 0, n.End == CutShort, n.End == SystemStopped:
		return true
	case n.End == EndedEarly:
		// An earlier version's early end: it was cut short unless it
		// said only that nothing was takeable.
		return strings.Contains(n.Reason, "worker is out") || strings.Contains(n.Reason, "stopped the night")
	}
	return false
}

// OutOfWork reports whether the night ended because nothing was
// takeable, and was not cut short.
func (n Night) OutOfWork() bool {
	return !n.CutShort() && (n.End == OutOfWork || n.End == EndedEarly)
}

// Early reports whether the night ended before its window closed and its
// ceilings were reached: cut short or out of work.
func (n Night) Early() bool { return n.CutShort() || n.OutOfWork() }

// Decision is a person's answer to a parked task.
type Decision string

// Decisions. Expired is the night's, when nobody answered by the deadline.
const (
	Undecided Decision = ""
	Approved  Decision = "approved"
	Denied    Decision = "denied"
	Expired   Decision = "expired"
)

// ParkedAction is a task waiting for a person, with the exact action it asked
// about and its deadline.
type ParkedAction struct {
	ID    int64 `json:"id"`
	Task  int64 `json:"task"`
	Night int64 `json:"night"`
	Step  int64 `json:"step"`
	// Action is the action asked about, as the gate described it (for
	// a tool call: its name and JSON input).
	Action    string    `json:"action"`
	Reason    string    `json:"reason,omitempty"`
	AskedAt   time.Time `json:"asked_at"`
	Deadline  time.Time `json:"deadline"`
	Decision  Decision  `json:"decision,omitempty"`
	DecidedAt time.Time `json:"decided_at"`
	// Used is set once an approved action has been run by a step.
	Used bool `json:"used,omitempty"`
}

// WorkerKey names a worker: a role with one of its models.
type WorkerKey struct {
	Role   Role
	Worker string
}

// Tokens are the tokens spent in a night, in all and per worker.
type Tokens struct {
	Total    int64
	ByWorker map[WorkerKey]int64
}

// Note is a line the night wrote for the morning reader, such as a role
// waiting on another that is out.
type Note struct {
	Night int64     `json:"night"`
	At    time.Time `json:"at"`
	Kind  string    `json:"kind"`
	Text  string    `json:"text"`
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
