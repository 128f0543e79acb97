package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// Run runs task through the whole lifecycle of a run, in this order:
//
//  1. the workspace: Dir opened, every tool path confined to it;
//  2. the journal, a journal.Tx attached to the workspace, so that no
//     change happens before its prior state is on disk, with snapshots
//     before every danger-class tool (a command can touch any file); and
//     the checkpoint, StateDir/checkpoints/<run>/, where the run's
//     progress is appended after every step, with a journal of its own
//     for each tool call that may change the workspace;
//  3. the tool set, every call's input checked against its schema;
//  4. the gate, which decides before any tool runs and audits it;
//  5. the retry policy and the credential's limiter, and the budget, on
//     every model call of the run (worker and judge, continuations and
//     regenerations), and the run's time limit;
//  6. the verifier, which the worker does not control;
//  7. the loop (agent.Run), to exactly one outcome;
//  8. commit (done, or Keep), suspend (a paused outcome: budget, timeout,
//     interrupted; the changes and the checkpoint stay for Resume or
//     Recover) or rollback (every other outcome, its patch kept),
//     reported in a rollback or checkpoint event just before the outcome
//     event;
//  9. the run record, StateDir/runs/<run>.json;
//
// and returns the outcome. `nightshift run`, `nightshift batch` and the
// night's builder all run this way, and no caller repeats a step of it;
// Resume is the same sequence, going on from a checkpoint.
//
// The error is not nil only when the run could not begin, and then
// nothing ran and the workspace is as it was: a Config without Dir or
// Model, a workspace that cannot be opened, tools that do not validate,
// an audit log that cannot be opened, or a journal that refuses
// (journal.ErrNeedsRecovery: an earlier run died there; journal.ErrBusy:
// another run is active there). Everything that goes wrong once the run
// has begun is in the Result.
func Run(ctx context.Context, cfg Config, task string) (*Result, error) {
	return run(ctx, cfg, task, "")
}

// run is Run, and Resume when resume names the run to go on with.
func run(ctx context.Context, cfg Config, task, resume string) (*Result, error) {
	if resume != "" {
		cfg.RunID = resume
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// 1. The workspace.
	root, err := workspace.Open(cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	state, err := stateDir(root, cfg.StateDir, cfg.StateBase)
	if err != nil {
		return nil, err
	}
	// Old records and checkpoints go; a failure to prune stops nothing.
	pruneErr := error(nil)
	if cfg.KeepState > 0 {
		_, pruneErr = statedir.Prune(state, cfg.KeepState, cfg.Clock.Now())
	}

	// 2. The journal: from here on every way out rolls back, unless the
	// run's end committed or suspended it. The run's journal and the
	// journal of each tool call are chained on the workspace's hooks (see
	// checkpointer).
	chain := &guardChain{root: root}
	var (
		tx *journal.Tx
		ck *checkpointer
		rs *resumed
	)
	if resume != "" {
		rs, err = readResumed(state, resume)
		if err != nil {
			return nil, err
		}
		if task == "" {
			task = rs.ck.Task
		}
		if tx, err = journal.Reattach(chain, state, resume); err != nil {
			return nil, err
		}
	} else if tx, err = begin(chain, state, cfg.RunID, cfg.RecoverPending); err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op once the end committed, rolled back or suspended

	// The checkpoint, for a run that pauses or dies to go on from.
	if rs != nil {
		ck, err = rs.open(root, tx, chain, cfg)
	} else {
		ck, err = newCheckpoint(state, root, tx, chain, cfg, task)
	}
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}
	defer ck.close()

	// 3. The tools.
	tools, err := tool.NewSet(cfg.Tools(root)...)
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}

	// 4. The gate.
	audit, err := gate.OpenAudit(filepath.Join(state, statedir.AuditName))
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}
	defer audit.Close()
	g := gate.New(gate.Config{
		Policy: cfg.Policy, Asker: cfg.Asker, Approved: cfg.Approved,
		Audit: auditors{audit, cfg.Audit}, Files: root.FS(), Clock: cfg.Clock,
	})

	rec := &event.Recorder{}
	events := event.Multi(cfg.Events, rec)
	ck.events = events
	out := &Result{Dir: root.Dir(), StateDir: state, PruneErr: pruneErr}
	started := cfg.Clock.Now()
	var st *agent.State
	if rs != nil {
		st, started = rs.ck.State, rs.ck.Started
	}
	// 5–7. The retry policy and the limiters, the verifier and the loop:
	// agent.Run puts every model call of the run through Retry (the
	// judge's through JudgeLimiter) and the budget, checks each end of
	// turn with the verifier, saves its progress after every step, and
	// ends in one outcome.
	res := agent.Run(ctx, agent.Config{
		Model: cfg.Model, ModelName: cfg.ModelName, System: cfg.System,
		Tools: tools, Root: root, Gate: g, Snapshots: tx,
		MaxSteps: cfg.MaxSteps, MaxTokens: cfg.MaxTokens, MaxTokensCap: cfg.MaxTokensCap,
		MaxVerifyRounds: cfg.MaxVerifyRounds, OutputSchema: cfg.OutputSchema,
		Retry: cfg.Retry, JudgeLimiter: cfg.JudgeLimiter, Verifier: cfg.Verifier,
		Budget: cfg.Budget, Price: cfg.Price, JudgePrice: cfg.JudgePrice,
		Timeout: cfg.Timeout, LoopLimit: cfg.LoopLimit,
		Checkpoint: ck, Resume: st,
		NoCache: cfg.NoCache, Fallback: cfg.Fallback,
		ContextWindow: cfg.ContextWindow, CompactAt: cfg.CompactAt,
		Results: resultStore{dir: filepath.Join(ck.dir, resultsName)}, ResultCap: cfg.ResultCap,
		Events: events, Clock: cfg.Clock, RunID: cfg.RunID, Exit: cfg.Exit,
		// 8. Commit, suspend or rollback, once the outcome is known and
		// before the outcome event, which stays the run's last.
		OnEnd: func(res *agent.Result) { out.end(tx, ck, res, cfg, events) },
	}, task)
	out.Result = *res

	// 9. The run record. A resumed run's record holds the events of
	// every part of the run.
	all := rec.Events()
	if rs != nil {
		all = append(rs.events, all...)
	}
	r := agent.NewRecord(task, cfg.ModelName, started, cfg.Clock.Now(), res, all)
	r.Patch, r.RolledBack, r.Conflicts = out.Patch, out.rolledBack(), out.conflicts()
	if cfg.Fallback != nil {
		r.Fallback = cfg.Fallback.ModelName
	}
	if out.Suspended {
		r.Checkpoint = ck.logPath()
	}
	if cfg.Exit != nil {
		code := cfg.Exit(res.Outcome)
		r.Exit = &code
	}
	out.Record = r
	out.RecordPath, out.RecordErr = r.Write(state)
	return out, nil
}

// stateDir returns the run's state folder, made when missing: dir when
// given, else the workspace's folder in the state directory base (""
// for the default), outside the workspace, where nothing the run does
// can reach it. Where nightshift keeps its state is decided here and in
// defaultStateDir, nowhere else.
func stateDir(root *workspace.Root, dir, base string) (string, error) {
	if dir != "" {
		return dir, statedir.MkdirPrivate(dir)
	}
	b, err := statedir.Base(base)
	if err != nil {
		return "", err
	}
	return statedir.Workspace(b, root.Dir())
}

// defaultStateDir is the state folder of the workspace dir when
// Config.StateDir and Config.StateBase are empty, without making it.
func defaultStateDir(dir string) (string, error) {
	b, err := statedir.Base("")
	if err != nil {
		return "", err
	}
	return statedir.WorkspaceDir(b, dir)
}

// begin attaches the run's journal to ws, first recovering what dead
// runs left when recover is set.
func begin(ws *guardChain, state, runID string, recover bool) (*journal.Tx, error) {
	tx, err := journal.Attach(ws, state, runID)
	if recover && errors.Is(err, journal.ErrNeedsRecovery) {
		if _, err = recoverState(ws.Dir(), state); err == nil {
			tx, err = journal.Attach(ws, state, runID)
		}
	}
	return tx, err
}

// Recover rolls back every journal that runs which died in the workspace
// dir left, as `nightshift recover` does, earlier versions' journals in
// its .nightshift/ included; stateDir is the workspace's state folder, ""
// for the default (as Config.StateDir). A folder that does not exist, or
// holds no journal, has nothing to recover.
func Recover(dir, stateDir string) (journal.Report, error) {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return journal.Report{}, nil
	}
	if stateDir == "" {
		var err error
		if stateDir, err = defaultStateDir(dir); err != nil {
			return journal.Report{}, err
		}
	}
	return recoverState(dir, stateDir)
}

// recoverState rolls back the dead runs' journals in state and drops
// their checkpoints: a run undone cannot be resumed. A checkpoint whose
// run has no journal left (it ended, or died before it began) goes too.
func recoverState(dir, state string) (journal.Report, error) {
	rep, err := journal.Recover(dir, state)
	if err != nil {
		return rep, err
	}
	return rep, dropStaleCheckpoints(state)
}

// auditors sends each gate decision to the audit log and to the caller's
// auditor, when there is one.
type auditors struct {
	log  *gate.AuditLog
	next gate.Auditor
}

func (a auditors) Record(e gate.Entry) error {
	err := a.log.Record(e)
	if a.next != nil {
		err = errors.Join(err, a.next.Record(e))
	}
	return err
}
