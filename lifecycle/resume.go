package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/workspace"
)

// Resume goes on with run runID in cfg.Dir from where it stopped: a run
// that paused (budget, timeout, interrupted) or whose process died. It is
// Run's sequence with the run's own journal reattached (journal.Reattach)
// instead of a new one, and the loop restored from the run's checkpoint:
// its conversation, steps, spend, verify round and loop count. A tool
// call that was running when it stopped is answered from the checkpoint
// when its result was recorded; otherwise a read-class call runs again,
// and any other has its effects undone from its own journal and is
// answered as unknown, so that a write is never applied twice.
//
// cfg is the run's set-up, rebuilt by the caller (ReadCheckpoint returns
// the Settings it recorded); its RunID is ignored. A cfg without a Spec
// goes on with the spec the run recorded (Checkpoint.Spec). Its Budget, Timeout
// and Clock may differ from the first run's: a run stopped by its budget
// is resumed with a higher one, and its spend so far counts against it.
// The task is the checkpoint's.
//
// Like Run, the error is not nil only when nothing ran: no checkpoint of
// the run (ErrNoCheckpoint), no pending journal (journal.ErrNotPending),
// another run alive in the workspace (journal.ErrBusy), others pending
// (journal.ErrNeedsRecovery). The night's builder resumes an attempt
// stopped by a signal this way.
func Resume(ctx context.Context, cfg Config, runID string) (*Result, error) {
	if runID == "" {
		return nil, fmt.Errorf("%w: no run named", ErrNoCheckpoint)
	}
	return run(ctx, cfg, "", runID)
}

// ReadCheckpoint reads the checkpoint of run runID in the workspace
// cfg.Dir (its state folder as cfg.StateDir and cfg.StateBase say; no
// other field is read), so that the caller can rebuild the Config the run
// ran with from its Settings before Resume. It returns an error matching
// ErrNoCheckpoint when the run has none there.
func ReadCheckpoint(cfg Config, runID string) (*Checkpoint, error) {
	state, err := existingStateDir(cfg)
	if err != nil {
		return nil, err
	}
	if !plainName(runID) {
		return nil, fmt.Errorf("%w %q", ErrNoCheckpoint, runID)
	}
	ck, _, _, err := readLog(checkpointDir(state, runID))
	if errors.Is(err, ErrNoCheckpoint) {
		return nil, fmt.Errorf("%w %s in %s", ErrNoCheckpoint, runID, cfg.Dir)
	}
	return ck, err
}

// Paused lists the runs of the workspace cfg.Dir that can be resumed:
// their journal is pending and their checkpoint is there. Newest first.
func Paused(cfg Config) ([]string, error) {
	state, err := existingStateDir(cfg)
	if err != nil {
		return nil, err
	}
	pending, err := journal.Pending(state)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, run := range pending {
		if _, err := os.Stat(filepath.Join(checkpointDir(state, run), checkpointLog)); err == nil {
			out = append(out, run)
		}
	}
	return out, nil
}

// FindRun finds the workspace of run runID among every workspace of the
// state directory base ("" for the default, as Config.StateBase) from its
// checkpoint, so that a run can be resumed by its ID alone. It returns the
// workspace and its state folder, or an error matching ErrNoCheckpoint.
func FindRun(base, runID string) (dir, stateDir string, err error) {
	if !plainName(runID) {
		return "", "", fmt.Errorf("%w %q", ErrNoCheckpoint, runID)
	}
	b, err := statedir.Base(base)
	if err != nil {
		return "", "", err
	}
	matches, _ := filepath.Glob(filepath.Join(b, statedir.WorkspacesName, "*", statedir.CheckpointsName, runID, checkpointLog))
	for _, m := range matches {
		state := filepath.Dir(filepath.Dir(filepath.Dir(m)))
		if ws := statedir.WorkspaceOf(state); ws != "" {
			return ws, state, nil
		}
	}
	return "", "", fmt.Errorf("%w %s in the state directory %s", ErrNoCheckpoint, runID, b)
}

func plainName(s string) bool {
	return s != "" && filepath.IsLocal(s) && filepath.Base(s) == s && s[0] != '.'
}

// existingStateDir is the state folder of cfg's workspace, without making
// it.
func existingStateDir(cfg Config) (string, error) {
	switch {
	case cfg.StateDir != "":
		return cfg.StateDir, nil
	case cfg.Dir == "":
		return "", errNoDir
	}
	b, err := statedir.Base(cfg.StateBase)
	if err != nil {
		return "", err
	}
	return statedir.WorkspaceDir(b, cfg.Dir)
}

// newCheckpoint begins the checkpoint of a new run: its log with the
// run's set-up. Checkpoints left by runs that ended for good go first.
func newCheckpoint(state string, root *workspace.Root, tx *journal.Tx, chain *guardChain, cfg Config, task string) (*checkpointer, error) {
	dropStaleCheckpoints(state) //nolint:errcheck // leftovers: failing to remove them stops nothing
	dir := checkpointDir(state, cfg.RunID)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	budget := cfg.limits()
	log, err := createLog(dir, record{Op: "begin", Run: cfg.RunID, Task: task, Model: cfg.spec.ModelName,
		Started: cfg.Clock.Now(), Settings: cfg.Settings, Spec: cfg.Spec, Budget: &budget, Timeout: cfg.spec.Timeout.D()}, redactFunc(cfg.Redact))
	if err != nil {
		return nil, err
	}
	return &checkpointer{dir: dir, run: cfg.RunID, log: log, clock: cfg.Clock, events: event.Discard,
		root: root, tx: tx, chain: chain}, nil
}

// resumed is a checkpoint read back to resume its run.
type resumed struct {
	dir   string
	ck    *Checkpoint
	calls map[string]string // call journal by tool-use ID
	whole int64
	// events are the events of the run's earlier parts, from its record.
	events []event.Event
}

// readResumed reads run's checkpoint and its record's events.
func readResumed(state, run string) (*resumed, error) {
	dir := checkpointDir(state, run)
	ck, calls, whole, err := readLog(dir)
	if errors.Is(err, ErrNoCheckpoint) {
		return nil, fmt.Errorf("%w %s", ErrNoCheckpoint, run)
	}
	if err != nil {
		return nil, err
	}
	rs := &resumed{dir: dir, ck: ck, calls: calls, whole: whole}
	if b, err := statedir.ReadFile(filepath.Join(state, statedir.RunsName, run+".json")); err == nil {
		var rec agent.Record
		if json.Unmarshal(b, &rec) == nil {
			rs.events = rec.Events
		}
	}
	return rs, nil
}

// open settles the tool calls the run left running (undone unless their
// result was recorded) and opens the log to go on appending, with a
// begin record of this part's limits.
func (rs *resumed) open(root *workspace.Root, tx *journal.Tx, chain *guardChain, cfg Config) (*checkpointer, error) {
	c := &checkpointer{dir: rs.dir, run: cfg.RunID, clock: cfg.Clock, events: event.Discard,
		root: root, tx: tx, chain: chain, written: len(rs.ck.State.Messages),
		compactions: rs.ck.State.Compactions}
	if err := rs.settleCalls(c); err != nil {
		return nil, err
	}
	log, err := openLog(rs.dir, rs.whole, redactFunc(cfg.Redact))
	if err != nil {
		return nil, err
	}
	c.log = log
	budget := cfg.limits()
	settings := rs.ck.Settings
	if len(cfg.Settings) > 0 {
		settings = cfg.Settings // the limits this part was given, for the next resume
	}
	if err := log.append(record{Op: "begin", Run: cfg.RunID, Task: rs.ck.Task, Model: rs.ck.Model,
		Started: rs.ck.Started, Settings: settings, Spec: cfg.Spec, Budget: &budget, Timeout: cfg.spec.Timeout.D()}, true); err != nil {
		log.close()
		return nil, err
	}
	return c, nil
}

// settleCalls deals with the journals of the tool calls that were running
// when the run stopped: a call whose result is in the checkpoint had
// finished, and its journal is dropped; any other is undone, and the
// run's journal told what was put back. Then the numbering goes on past
// them.
func (rs *resumed) settleCalls(c *checkpointer) error {
	entries, err := os.ReadDir(c.callsDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	done := map[string]bool{}
	if p := rs.ck.State.Pending; p != nil {
		for _, b := range p.Results {
			if j, ok := rs.calls[b.ToolUseID]; ok {
				done[j] = true
			}
		}
	}
	for _, e := range entries {
		name := e.Name()
		if n, err := strconv.Atoi(name); err == nil {
			c.seq = max(c.seq, n)
		}
		state := filepath.Join(c.callsDir(), name)
		if done[name] {
			_, err = journal.Discard(c.root.Dir(), state)
		} else {
			var rep journal.Report
			rep, err = journal.Recover(c.root.Dir(), state)
			c.tx.Adopt(reportPaths(rep))
		}
		if err != nil {
			return fmt.Errorf("the tool call left running when the run stopped: %w", err)
		}
		if err := os.RemoveAll(state); err != nil {
			return err
		}
	}
	return nil
}

// ForgetEnded removes, from a workspace's state folder, the checkpoints
// whose run has no pending journal left: it ended for good (committed,
// rolled back, recovered or discarded) and cannot be resumed. `nightshift
// recover` calls it once it has undone the paused and dead runs.
func ForgetEnded(stateDir string) error { return dropStaleCheckpoints(stateDir) }

// dropStaleCheckpoints removes the checkpoints in state whose run has no
// pending journal: it ended for good (committed, rolled back, recovered)
// and cannot be resumed.
func dropStaleCheckpoints(state string) error {
	entries, err := os.ReadDir(filepath.Join(state, statedir.CheckpointsName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	pending, err := journal.Pending(state)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if !slices.Contains(pending, e.Name()) {
			errs = append(errs, os.RemoveAll(filepath.Join(state, statedir.CheckpointsName, e.Name())))
		}
	}
	return errors.Join(errs...)
}
