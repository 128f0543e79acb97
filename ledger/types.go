package ledger

import "time"

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
	Front     bool      `json:"front"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// NewTask is a task to add.
type NewTask struct {
	Title string
	Body  string
	// Source says who added it: "person" (the default) or "proposer".
	Source string
	// Score, when set, scores the task at once.
	Score *float64
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
	Outcome   string    `json:"outcome,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Answer    string    `json:"answer,omitempty"`
	Checks    []string  `json:"failed_checks,omitempty"`
	Tokens    int64     `json:"tokens"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
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

// Night end kinds. A system stop is its own kind so the exit status can
// say so, but it is an early end too (see Early).
const (
	WindowClosed    EndKind = "window-closed"
	CeilingsReached EndKind = "ceilings-reached"
	EndedEarly      EndKind = "ended-early"
	SystemStopped   EndKind = "system-stopped"
)

// Early reports whether a night that ended this way counts as ended early,
// seed 003's second number: it stopped before its window closed and before
// its ceilings were reached, because no worker could do anything useful
// (all out, nothing takeable) or the system stopped.
func (k EndKind) Early() bool { return k == EndedEarly || k == SystemStopped }

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
}

// Ended reports whether the night has ended.
func (n Night) Ended() bool { return !n.EndedAt.IsZero() }

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
