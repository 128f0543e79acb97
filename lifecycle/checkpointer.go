package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// checkpointer keeps a run's checkpoint (agent.Checkpointer): its log,
// appended after every step and fsynced, and a journal of its own for
// each tool call that may change the workspace, begun before the call
// and dropped once its result is in the log. A run that stops while such
// a call runs leaves that journal pending, so that its resumption can put
// the workspace back as it was before the call and answer it as unknown:
// a write is never applied twice.
type checkpointer struct {
	dir    string // the run's checkpoint folder
	run    string
	log    *logFile
	events event.Sink
	clock  clock.Clock
	// written is how many messages of the conversation the log holds,
	// as of compactions compactions of the history (agent.State).
	written     int
	compactions int

	root  *workspace.Root
	tx    *journal.Tx
	chain *guardChain
	seq   int // numbers the call journals
}

var _ agent.Checkpointer = (*checkpointer)(nil)

// Save appends the loop's progress: the messages added since the last
// save and the rest of the state. A step's end is synced and reported in
// a checkpoint event; a reply about to run its tools is not synced (if
// it is lost, the resumed run asks the model again).
func (c *checkpointer) Save(st *agent.State) error {
	from := min(c.written, len(st.Messages))
	if st.Compactions != c.compactions {
		// A compaction replaced the older turns: the whole history is
		// written again, from the first message (readLog replays a
		// state record from its From).
		from, c.compactions = 0, st.Compactions
	}
	before := c.log.bytes
	err := c.log.append(record{Op: "state", From: from, Messages: st.Messages[from:], State: st}, st.Pending == nil)
	if err != nil {
		return err
	}
	c.written = len(st.Messages)
	if st.Pending == nil {
		e := event.NewCheckpoint(event.CheckpointInfo{Step: st.Steps, Bytes: c.log.bytes - before, TotalBytes: c.log.bytes, Messages: len(st.Messages)})
		e.TS, e.Run, e.Step = c.clock.Now(), c.run, st.Steps
		c.events.Emit(e)
	}
	return nil
}

// BeforeTool begins the journal of a call that may change the workspace
// (write and danger classes; a danger-class call's journal captures the
// whole workspace first, as the run's does). Each call's journal has a
// state folder of its own, calls/<n>, so that each is undone or dropped
// alone.
func (c *checkpointer) BeforeTool(ctx context.Context, u llm.Block, class tool.Class) error {
	if class == tool.Read {
		return nil
	}
	c.seq++
	name := strconv.Itoa(c.seq)
	if err := c.log.append(record{Op: "call", ID: u.ID, Journal: name}, false); err != nil {
		return err
	}
	j, err := journal.Begin(c.root.Dir(), filepath.Join(c.callsDir(), name), "call")
	if err != nil {
		return err
	}
	if class == tool.Danger {
		if err := j.Snapshot(ctx); err != nil {
			j.Commit() //nolint:errcheck // the call does not run: nothing to keep
			return err
		}
	}
	c.chain.setCall(j)
	return nil
}

// AfterTool records a call's result. For a call with a journal the
// result is synced first and the journal dropped after, so that at every
// moment either the result or the means to undo the call is on disk. A
// call cut short (nil result) is undone at once from its journal.
func (c *checkpointer) AfterTool(u llm.Block, class tool.Class, result *llm.Block) error {
	crashpoint.Hit("lifecycle: tool returned, result not recorded")
	if result == nil {
		return c.abortCall()
	}
	j := c.chain.setCall(nil)
	if err := c.log.append(record{Op: "result", ID: u.ID, Result: result}, j != nil); err != nil {
		if j != nil {
			// Without its result on disk the call must stay undoable.
			c.undo(j) //nolint:errcheck // the error above is the one to report
		}
		return err
	}
	if j == nil {
		return nil
	}
	crashpoint.Hit("lifecycle: result recorded, call journal not dropped")
	return j.Commit()
}

// abortCall undoes the call whose journal is open, if any: the run ends
// while it runs, and its result will not be recorded.
func (c *checkpointer) abortCall() error {
	if j := c.chain.setCall(nil); j != nil {
		return c.undo(j)
	}
	return nil
}

// undo rolls a call's journal back and tells the run's journal what it
// put back, which the run's rollback must then restore as its own.
func (c *checkpointer) undo(j *journal.Journal) error {
	rep, err := j.Rollback()
	c.tx.Adopt(reportPaths(rep))
	return err
}

// logPath is the checkpoint log's path.
func (c *checkpointer) logPath() string { return filepath.Join(c.dir, checkpointLog) }

// close closes the log; the checkpoint stays.
func (c *checkpointer) close() {
	if c.log != nil {
		c.log.close()
	}
}

// drop removes the checkpoint of a run that ended for good (committed or
// rolled back): there is nothing left to resume.
func (c *checkpointer) drop() {
	c.close()
	c.log = nil
	os.RemoveAll(c.dir)
}

func (c *checkpointer) callsDir() string { return filepath.Join(c.dir, callsName) }

// reportPaths lists every path a rollback put back.
func reportPaths(rep journal.Report) []string {
	out := append(append(append([]string(nil), rep.Restored...), rep.Removed...), rep.Recreated...)
	return out
}

// guardChain stands between the workspace and its journals: the run's
// journal is asked first about every change, then the journal of the
// tool call running, if any, so that a change is saved for the run's
// rollback and for the call's undo alike. It is the journal.Workspace the
// run's journal attaches to.
type guardChain struct {
	root *workspace.Root

	mu        sync.Mutex
	runBefore func(string) error
	runAfter  func(string)
	call      *journal.Journal
}

var _ journal.Workspace = (*guardChain)(nil)

func (g *guardChain) Dir() string { return g.root.Dir() }

// AddChanged passes what commands changed on to the workspace, which
// keeps the list for the judge (journal.Attach looks for it).
func (g *guardChain) AddChanged(paths []string) { g.root.AddChanged(paths) }

func (g *guardChain) SetGuard(f func(string) error) {
	g.mu.Lock()
	g.runBefore = f
	g.mu.Unlock()
	g.root.SetGuard(g.before)
}

func (g *guardChain) SetAfter(f func(string)) {
	g.mu.Lock()
	g.runAfter = f
	g.mu.Unlock()
	g.root.SetAfter(g.after)
}

// setCall makes j the running call's journal and returns the one before.
func (g *guardChain) setCall(j *journal.Journal) *journal.Journal {
	g.mu.Lock()
	defer g.mu.Unlock()
	prev := g.call
	g.call = j
	return prev
}

func (g *guardChain) before(rel string) error {
	g.mu.Lock()
	run, call := g.runBefore, g.call
	g.mu.Unlock()
	if run != nil {
		if err := run(rel); err != nil {
			return err
		}
	}
	if call != nil {
		return call.Before(rel)
	}
	return nil
}

func (g *guardChain) after(rel string) {
	g.mu.Lock()
	run, call := g.runAfter, g.call
	g.mu.Unlock()
	if run != nil {
		run(rel)
	}
	if call != nil {
		call.After(rel)
	}
}
