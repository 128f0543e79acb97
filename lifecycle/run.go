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
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/verify/claims"
	"github.com/nightshift-dev/nightshift/workspace"
)

// Run runs task through the whole lifecycle of a run, in this order:
//
//  1. the workspace: Dir opened, every tool path confined to it, and the
//     sandbox its commands run in (package sandbox);
//  2. the journal, a journal.Tx attached to the workspace, so that no
//     change happens before its prior state is on disk, with snapshots
//     before every danger-class tool (a command can touch any file); and
//     the checkpoint, StateDir/checkpoints/<run>/, where the run's
//     progress is appended after every step, with a journal of its own
//     for each tool call that may change the workspace;
//  3. the tool set, every call's input checked against its schema and
//     every result redacted (Config.Redact);
//  4. the gate, which decides before any tool runs and audits it;
//  5. the retry policy and the credential's limiter, and the budget, on
//     every model call of the run (worker and judge, continuations and
//     regenerations), and the run's time limit;
//  6. the verifier, which the worker does not control: its rules and the
//     claims check (package verify/claims), then its judge;
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
// Model, a workspace that cannot be opened, a sandbox that cannot be had
// (sandbox.ErrConfig), tools that do not validate, a gate rule naming no
// tool of the run (*gate.UnknownToolError), an audit log that cannot be
// opened, or a journal that refuses
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
		if cfg.Spec == nil {
			// The options the run started with, as it recorded them.
			if ck, err := ReadCheckpoint(cfg, resume); err == nil && ck.Spec != nil {
				spec := ck.Spec.Clone()
				cfg.Spec = &spec
			}
		}
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
	// The sandbox of the run's commands: made once the state folder
	// exists, so that it is hidden from them, with the whole state
	// directory (statedir.Base, and StateBase when the caller moved it).
	// Its commands carry the journal's mark, by which recover finds one
	// that outlived a killed run.
	sbc, err := cfg.sandboxConfig()
	if err != nil {
		return nil, err
	}
	sbc.Dir = root.Dir()
	sbc.Hide = append(sbc.Hide, state)
	if cfg.StateBase != "" {
		sbc.Hide = append(sbc.Hide, cfg.StateBase)
	}
	sbc.Set = append(sbc.Set, journal.Mark(root.Dir()))
	// The probe of bubblewrap keeps its success in the state directory,
	// beside the state it protects and as far from the run's commands
	// (checked outside the workspace, hidden from them): the next
	// run's start does not pay for it again.
	if sbc.ProbeCache == "" && cfg.StateDir == "" {
		if b, err := statedir.Base(cfg.StateBase); err == nil {
			sbc.ProbeCache = sandbox.ProbeCacheFile(b)
		}
	}
	sb, err := sandbox.New(sbc)
	if err != nil {
		return nil, err
	}
	// The look outside the workspace (the sandbox's bounded scan of the
	// homes) is made when a command first needs it: each command and each
	// check calls Prepare before its clock starts, so a run that starts
	// no command never pays for it. MCP servers start under the sandbox
	// before the first step, within their start's time limit: for them
	// it is made now.
	if len(cfg.MCP) > 0 {
		sb.Prepare()
	}
	if cfg.Warn != nil {
		for _, w := range sb.Warnings() {
			cfg.Warn(w)
		}
		if l := journal.LegacyDir(root.Dir()); l != "" {
			cfg.Warn(legacyWarning(l, root.Dir(), cfg.StateDir))
		}
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
	} else if tx, err = begin(ctx, chain, state, cfg.RunID, cfg.RecoverPending); err != nil {
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

	// The model's window, from its server when it was given none
	// (window.go): before the tools, whose cap and sub-agents follow it.
	learnWindow(ctx, &cfg)

	// 3. The tools: the run's own (whose results the model reads only
	// once the redactor has been through them: a command can print a key
	// it found), then the MCP servers' (started now, so that one that
	// does not start stops the run before any model call), memory's and
	// delegate_task (lifecycle/ecosystem.go); every gate rule is checked
	// against them all.
	var ts []tool.Tool
	if cfg.Tools != nil {
		ts = cfg.Tools(root)
	} else {
		ts = defaultTools(root, sb, cfg.commandTimeout(), cfg.maxFileSize())
	}
	x, err := openExtras(ctx, cfg, root, state, sb, ts)
	if err != nil {
		return nil, err
	}
	defer x.close() //nolint:errcheck // a server that stops badly changes nothing the run did
	tools, err := tool.NewSet(append(ts, x.tools...)...)
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}
	tools.SetConfig(tool.Config{Redact: redactFunc(cfg.Redact)})
	// A gate rule must name a tool the run has: a misspelt one would
	// decide nothing, and its class's rule would let the tool run.
	// read_result joins the run later, once a tool result is cut, so a
	// rule may name it from the start.
	policy, err := cfg.policy()
	if err != nil {
		return nil, err
	}
	if err := policy.Validate(append(tools.Names(), agent.ReadResultName)); err != nil {
		return nil, err
	}

	// 4. The gate.
	audit, err := gate.OpenAudit(filepath.Join(state, statedir.AuditName))
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}
	defer audit.Close()
	g := gate.New(gate.Config{
		Policy: policy, Asker: cfg.Asker, Approved: cfg.Approved,
		Audit: cfg.Redact.Auditor(auditors{audit, cfg.Audit}), Files: root.FS(), Clock: cfg.Clock,
		Redact: redactFunc(cfg.Redact),
	})

	// The trace: the run's span, its calls' spans beneath it.
	ctx, span := cfg.Trace.Run(ctx, traceInfo(cfg, task))
	var observer agent.Observer
	if span != nil {
		observer = span
	}

	rec := &event.Recorder{}
	// One redactor in front of every sink: the caller's (stderr,
	// --events) and the record see the same events.
	events := cfg.Redact.Sink(event.Multi(cfg.Events, rec))
	ck.events = events
	verifier := verifierIn(cfg.Verifier, sb, cfg.Redact)
	if x.delegate != nil {
		x.delegate.bind(g, events, observer)
	}
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
	// The loop reads the spec too: its model name, limits, verify rounds
	// and caching, with the window the run knows.
	spec := cfg.spec
	spec.ContextWindow = cfg.window()
	res := agent.Run(ctx, agent.Config{
		Model: cfg.Model, Spec: spec, System: x.system(cfg.System), Observer: observer,
		Tools: tools, Root: root, Gate: g, Snapshots: tx,
		MaxTokensCap: cfg.MaxTokensCap, OutputSchema: cfg.OutputSchema,
		Retry: cfg.Retry, JudgeLimiter: cfg.JudgeLimiter, JudgeBreaker: cfg.JudgeBreaker, Verifier: verifier,
		Price: cfg.Price, JudgePrice: cfg.JudgePrice,
		Checkpoint: ck, Resume: st, Fallback: cfg.Fallback, CompactAt: cfg.CompactAt,
		Results: resultStore{dir: filepath.Join(ck.dir, resultsName)}, ResultCap: cfg.ResultCap,
		Events: events, Clock: cfg.Clock, RunID: cfg.RunID, Exit: cfg.Exit,
		Start: append([]agent.StartField{{Key: "sandbox", Value: sb.String()}}, cfg.Start...),
		// 8. Commit, suspend or rollback, once the outcome is known and
		// before the outcome event, which stays the run's last.
		OnEnd: func(res *agent.Result) { out.end(ctx, tx, ck, res, cfg, traced(events, span)) },
	}, task)
	out.Result = *res
	out.MemoryErr = x.remember(ctx, cfg, res)
	span.End(res)

	// 9. The run record. A resumed run's record holds the events of
	// every part of the run.
	all := rec.Events()
	if rs != nil {
		all = append(rs.events, all...)
	}
	r := agent.NewRecord(task, cfg.spec.ModelName, started, cfg.Clock.Now(), res, all)
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
	redactRecord(cfg.Redact, r)
	out.Record = r
	out.RecordPath, out.RecordErr = r.Write(state)
	out.Answer = cfg.Redact.String(out.Answer)
	out.Reason = cfg.Redact.String(out.Reason)
	return out, nil
}

// verifierIn returns v (or the default verifier) with its cmd: checks run
// in sb, its reasons and what its judge is sent redacted, and the claims
// check (package verify/claims) unless v says NoClaims. v itself is not
// changed: callers share one across runs.
func verifierIn(v *verify.Verifier, sb *sandbox.Sandbox, r *redact.Redactor) *verify.Verifier {
	out := &verify.Verifier{}
	if v != nil {
		c := *v
		out = &c
	}
	switch {
	case out.NoClaims:
		out.Claims = nil
	case out.Claims == nil:
		out.Claims = claims.New(claims.Config{})
	}
	if out.Commands == nil {
		out.Commands = sb
	}
	if out.Redact == nil && r != nil {
		out.Redact = r.String
	}
	return out
}

// redactFunc is r's String, or nil for no redactor.
func redactFunc(r *redact.Redactor) func(string) string {
	if r == nil {
		return nil
	}
	return r.String
}

// redactRecord replaces the secrets in what a run record holds besides
// its events, which passed through the redactor as they were emitted.
func redactRecord(r *redact.Redactor, rec *agent.Record) {
	if r == nil {
		return
	}
	rec.Task, rec.Reason, rec.Error, rec.Answer, rec.Patch =
		r.String(rec.Task), r.String(rec.Reason), r.String(rec.Error), r.String(rec.Answer), r.String(rec.Patch)
	for _, list := range [][]string{rec.FailedChecks, rec.RolledBack, rec.Conflicts} {
		for i := range list {
			list[i] = r.String(list[i])
		}
	}
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

// legacyWarning says, in one line, that a journal lies in the
// workspace's .nightshift/journal, that the run does not apply it, and
// how to look at it and apply it: it may be an earlier version's, of a
// run that died, or planted by a run's command or a cloned repository.
func legacyWarning(legacy, dir, stateDir string) string {
	args := "--dir " + dir
	if stateDir != "" {
		args += " --state-dir " + stateDir
	}
	return fmt.Sprintf("a journal lies in the workspace's %s (an earlier version's, or written by a run's command or a cloned repository): this run does not apply it; `nightshift recover %s` lists what it would change, `nightshift recover %s --legacy` applies it", legacy, args, args)
}

// begin attaches the run's journal to ws, first recovering what dead
// runs left when recover is set.
func begin(ctx context.Context, ws *guardChain, state, runID string, recover bool) (*journal.Tx, error) {
	tx, err := journal.Attach(ws, state, runID)
	if recover && errors.Is(err, journal.ErrNeedsRecovery) {
		if _, err = recoverState(ctx, ws.Dir(), state); err == nil {
			tx, err = journal.Attach(ws, state, runID)
		}
	}
	return tx, err
}

// Recover rolls back every journal that runs which died in the workspace
// dir left in its state folder, as `nightshift recover` does (a journal
// in the workspace's .nightshift/ is never applied here: see
// journal.Legacy); stateDir is the workspace's state folder, ""
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
	return recoverState(context.Background(), dir, stateDir)
}

// recoverState rolls back the dead runs' journals in state and drops
// their checkpoints: a run undone cannot be resumed. A checkpoint whose
// run has no journal left (it ended, or died before it began) goes too.
func recoverState(ctx context.Context, dir, state string) (journal.Report, error) {
	rep, err := journal.RecoverContext(ctx, dir, state)
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
