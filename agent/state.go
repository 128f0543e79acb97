package agent

import (
	"context"

	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/verify"
)

// State is a run's progress: everything the loop needs to go on from
// where it stopped. The loop hands it to Config.Checkpoint after every
// step, and takes one back as Config.Resume.
type State struct {
	// Messages is the conversation so far, the task first. The loop
	// appends to it, except when a compaction replaces its older turns by
	// a summary (Compactions counts them): a Checkpointer may write just
	// what is new while Compactions stays the same, and must write it all
	// again when it changes.
	Messages []llm.Message `json:"-"`
	// Steps is the worker model calls made so far.
	Steps int `json:"steps"`
	// Spent is the usage and cost of every call so far, the judge's too.
	Spent budget.Spend `json:"spent"`
	// FailsByCheck and FailedChecks are the verifier's FAILs so far: the
	// verify round.
	FailsByCheck map[string]int `json:"fails_by_check,omitempty"`
	FailedChecks []string       `json:"failed_checks,omitempty"`
	// MaxTokens is the output cap of the next call (raised after a cut
	// tool call), Cuts the max_tokens cuts in a row so far, and Text the
	// free text stitched from cut replies so far.
	MaxTokens int    `json:"max_tokens"`
	Cuts      int    `json:"cuts,omitempty"`
	Text      string `json:"text,omitempty"`
	// Loop is the loop detector's count.
	Loop Loop `json:"loop,omitzero"`
	// Changed lists the files the run changed, for the judge.
	Changed []string `json:"changed,omitempty"`
	// Ran lists the run's tool calls other than the file tools, with how
	// each ended, for the claims check.
	Ran []verify.Ran `json:"ran,omitempty"`
	// Compactions is how many times the history was compacted, and
	// ResultsCut how many tool results were cut in it (a resumed run
	// that cut one has read_result among its tools).
	Compactions int `json:"compactions,omitempty"`
	ResultsCut  int `json:"results_cut,omitempty"`
	// Window is a context window the run learnt from its server (an
	// overflow error's, a reply's that stopped at it) that is smaller
	// than the one it was given; 0 when it learnt none.
	Window int `json:"window,omitempty"`
	// Pending is set while the last message's tool calls run: the
	// results recorded so far. A run resumed with Pending set finishes
	// those calls first (see Checkpointer).
	Pending *Pending `json:"pending,omitempty"`
}

// Pending is a reply whose tool calls were running when the state was
// saved.
type Pending struct {
	// Results are the results of the calls that returned, in order.
	Results []llm.Block `json:"results"`
}

// Checkpointer saves a run's progress so that a run stopped by its
// budget, its time limit, an interrupt or a dead process can be resumed
// where it stopped (the lifecycle keeps it in the run's state folder).
//
// A tool call that may change the workspace is bracketed: BeforeTool
// before it runs, AfterTool once its result is known. A resumed run
// whose state names a call without a result treats that call's outcome
// as unknown: a read-class call is simply run again; any other gets an
// is_error result saying so, and a Checkpointer must have put the
// workspace back as it was before the call, so that a write is never
// applied twice.
type Checkpointer interface {
	// Save records st: at the end of a step, and when a reply whose tool
	// calls are about to run arrived (st.Pending set, no results yet).
	Save(st *State) error
	// BeforeTool is called just before a call of class runs. An error
	// keeps it from running: the model gets an is_error result.
	BeforeTool(ctx context.Context, u llm.Block, class tool.Class) error
	// AfterTool records the call's result; result is nil when the run
	// stopped while the call ran and its result is not kept (what the call
	// did must then be undone).
	AfterTool(u llm.Block, class tool.Class, result *llm.Block) error
}
