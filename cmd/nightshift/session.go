package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/command"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

// session is one run's wiring: workspace, tools, model, verifier, events.
type session struct {
	cfg      agent.Config
	root     *workspace.Root
	rec      *event.Recorder
	evFile   io.WriteCloser
	task     *taskfile.Spec
	keep     bool
	clock    clock.Clock
	stderr   io.Writer
	closers  []func() error
	journal  *journal.Journal
	modelTag string
	// ended holds what the end of the run did to the workspace, for the
	// run's record.
	ended agent.Record
}

// setupRun builds a session from flags and a task; every problem found
// here is a usage error: nothing has run yet.
// Runs in one process share limiters, one per credential.
func setupRun(ctx context.Context, f *runFlags, spec *taskfile.Spec, stdin io.Reader, stderr io.Writer, limiters *retry.Limiters) (*session, error) {
	s := &session{task: spec, keep: f.keep, clock: clock.Real{}, stderr: stderr}
	b, err := f.modelFlags.resolve(osGetenv)
	if err != nil {
		return nil, err
	}
	model, name := b.model, b.name
	s.modelTag = name
	if f.retryBudget < 0 {
		return nil, usagef("--retry-budget must not be negative")
	}

	dir := f.dir
	if spec.Dir != "" && f.dir == "." {
		dir = filepath.Join(spec.BaseDir, spec.Dir)
	}
	if fi, err := os.Stat(dir); errors.Is(err, iofs.ErrNotExist) {
		return nil, usagef("--dir %s: does not exist (create it, or name another folder)", dir)
	} else if err != nil || !fi.IsDir() {
		return nil, usagef("--dir %s: not a folder", dir)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		return nil, usagef("--dir %s: %v", dir, err)
	}
	s.root = root
	s.closers = append(s.closers, root.Close)

	policy, err := gate.ParsePolicy(spec.Approve...)
	if err != nil {
		s.close()
		return nil, usageError(err)
	}
	tools, err := tool.NewSet(append(fs.Tools(root), command.New(command.Config{Dir: root.Dir()}))...)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("tools: %w", err)
	}

	v, judgeLimiter, err := buildVerifier(f, spec, model, name, limiters)
	if err != nil {
		s.close()
		return nil, err
	}

	var schema *jsonschema.Resolved
	if spec.OutputSchema != "" {
		if schema, err = loadSchema(spec.OutputSchema); err != nil {
			s.close()
			return nil, usageError(err)
		}
	}

	if s.evFile, err = openEvents(f.events); err != nil {
		s.close()
		return nil, err
	}
	s.rec = &event.Recorder{}
	var jsonSink event.Sink
	if s.evFile != nil {
		jsonSink = event.NewJSON(s.evFile)
		s.closers = append(s.closers, s.evFile.Close)
	}

	state, err := root.EnsureStateDir()
	if err != nil {
		s.close()
		return nil, err
	}
	audit, err := gate.OpenAudit(filepath.Join(state, "audit.jsonl"))
	if err != nil {
		s.close()
		return nil, err
	}
	s.closers = append(s.closers, audit.Close)
	var asker gate.Asker
	if in, ok := stdin.(*os.File); ok {
		asker = gate.Interactive(in, stderr)
	}

	events := event.Multi(event.NewText(stderr), jsonSink, s.rec)
	s.cfg = agent.Config{
		Model:           model,
		ModelName:       name,
		Tools:           tools,
		Root:            root,
		MaxSteps:        spec.MaxSteps,
		MaxTokens:       spec.MaxTokens,
		MaxVerifyRounds: verifyRounds(spec.MaxVerifyRounds),
		Retry: retry.Policy{
			Retries: *spec.Retries,
			Backoff: f.backoff,
			Budget:  f.retryBudget,
			Limiter: limiters.For(b.endpoint, b.credential),
		},
		JudgeLimiter: judgeLimiter,
		OutputSchema: schema,
		Verifier:     v,
		Gate: gate.New(gate.Config{
			Policy: policy, Asker: asker, Audit: audit, Files: root.FS(), Clock: s.clock,
		}),
		Events: events,
		Clock:  s.clock,
	}
	return s, nil
}

// verifyRounds maps the user's count (0 = none) onto the agent's (0 =
// default, negative = none).
func verifyRounds(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// buildVerifier parses the rules (a rule that cannot run is a usage error
// before the run starts) and sets up the judge.
// A judge on another credential gets that credential's limiter; nil
// means the worker's.
func buildVerifier(f *runFlags, spec *taskfile.Spec, worker llm.Model, workerName string, limiters *retry.Limiters) (*verify.Verifier, *retry.Limiter, error) {
	v := &verify.Verifier{}
	for _, c := range spec.Checks {
		r, err := verify.ParseRule(c, spec.BaseDir)
		if err != nil {
			return nil, nil, usageError(err) // it names the rule already
		}
		v.Rules = append(v.Rules, r)
	}
	if spec.NoJudge {
		return v, nil, nil
	}
	jb, err := f.modelFlags.judge(spec.JudgeModel, osGetenv)
	if err != nil {
		return nil, nil, usageError(err)
	}
	if jb == nil {
		v.Judge = &verify.Judge{Model: worker, ModelName: workerName, Rubric: spec.Rubric}
		return v, nil, nil
	}
	v.Judge = &verify.Judge{Model: jb.model, ModelName: jb.name, Rubric: spec.Rubric}
	return v, limiters.For(jb.endpoint, jb.credential), nil
}

// loadSchema reads and resolves a JSON Schema file.
func loadSchema(path string) (*jsonschema.Resolved, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	var sc jsonschema.Schema
	if err := json.Unmarshal(data, &sc); err != nil {
		return nil, fmt.Errorf("--output-schema %s: not a JSON Schema: %w", path, err)
	}
	res, err := sc.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", path, err)
	}
	return res, nil
}

// begin starts the run's journal: before the run changes a file, its
// prior state is synced to disk, so a run that fails, or a process that
// dies, can be rolled back. It refuses (exit 7) in a workspace where an
// earlier run died midway.
func (s *session) begin() error {
	s.cfg.RunID = agent.NewRunID(s.clock.Now())
	j, err := journal.Begin(s.root.Dir(), s.root.StateDir(), s.cfg.RunID)
	if errors.Is(err, journal.ErrNeedsRecovery) {
		return &exitError{code: agent.NeedsRecovery.ExitCode(), err: fmt.Errorf(
			"%w\nnothing was run; restore the workspace with: nightshift recover --dir %s", err, s.root.Dir())}
	}
	if errors.Is(err, journal.ErrBusy) {
		return fmt.Errorf("%w\nnothing was run; wait for the other run to end, or give this one another --dir", err)
	}
	if err != nil {
		return err
	}
	s.journal = j
	s.root.SetGuard(j.Before)
	s.root.SetAfter(j.After)
	s.cfg.Snapshots = j
	return nil
}

// run runs the task, then keeps the workspace (done, or --keep) or rolls
// it back to the state before the run, keeping the attempted patch in the
// run's record.
func (s *session) run(ctx context.Context, task string) *agent.Result {
	started := s.clock.Now()
	cfg := s.cfg
	cfg.OnEnd = func(res *agent.Result) {
		if s.journal != nil {
			s.finish(res, &s.ended)
		}
	}
	res := agent.Run(ctx, cfg, task)
	rec := agent.NewRecord(task, s.modelTag, started, s.clock.Now(), res, s.rec.Events())
	rec.Patch, rec.RolledBack, rec.Conflicts = s.ended.Patch, s.ended.RolledBack, s.ended.Conflicts
	if _, err := rec.Write(s.root.StateDir()); err != nil {
		fmt.Fprintf(s.stderr, "nightshift: %v\n", err)
	}
	return res
}

// finish commits or rolls back the journal, reporting it in an event
// before the outcome's, and keeps the patch and what was restored in rec.
func (s *session) finish(res *agent.Result, rec *agent.Record) {
	emit := func(detail string, data map[string]any) {
		s.cfg.Events.Emit(event.Event{TS: s.clock.Now(), Run: res.RunID, Step: res.Steps, Type: "rollback", Detail: detail, Data: data})
	}
	if res.Outcome == agent.Done || s.keep {
		if err := s.journal.Commit(); err != nil {
			fmt.Fprintf(s.stderr, "nightshift: %v\n", err)
		}
		if res.Outcome != agent.Done {
			emit("kept: --keep leaves the changes in place", map[string]any{"kept": true})
		}
		return
	}
	patch, err := s.journal.Patch()
	if err != nil {
		fmt.Fprintf(s.stderr, "nightshift: patch: %v\n", err)
	}
	rec.Patch = patch
	rep, err := s.journal.Rollback()
	if err != nil {
		emit("FAILED: "+err.Error(), map[string]any{"error": err.Error()})
		fmt.Fprintf(s.stderr, "nightshift: rollback failed: %v\nrun: nightshift recover --dir %s\n", err, s.root.Dir())
		return
	}
	rec.RolledBack = append(append(append([]string(nil), rep.Restored...), rep.Removed...), rep.Recreated...)
	for _, c := range rep.Conflicts {
		rec.Conflicts = append(rec.Conflicts, c.String())
	}
	detail := fmt.Sprintf("restored=%d removed=%d recreated=%d conflicts=%d",
		len(rep.Restored), len(rep.Removed), len(rep.Recreated), len(rep.Conflicts))
	emit(detail, map[string]any{
		"restored": nonNil(rep.Restored), "removed": nonNil(rep.Removed), "recreated": nonNil(rep.Recreated),
		"conflicts": nonNil(rec.Conflicts),
	})
	for _, c := range rec.Conflicts {
		fmt.Fprintf(s.stderr, "nightshift: left as it is (changed by something else during the run): %s\n", c)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// report prints the end of a run for the person at the terminal.
func (s *session) report(res *agent.Result, w io.Writer) {
	u := res.Usage
	fmt.Fprintf(w, "nightshift: %s after %d %s (exit %d); tokens: %d in, %d out\n",
		res.Outcome, res.Steps, plural(res.Steps, "step"), res.Outcome.ExitCode(), u.InputTokens, u.OutputTokens)
	switch res.Outcome {
	case agent.Done:
	case agent.Unverified:
		fmt.Fprintf(w, "nightshift: UNVERIFIED — a person must look. Failed checks: %s\n  %s\n",
			strings.Join(res.FailedChecks, ", "), res.Reason)
	default:
		fmt.Fprintf(w, "nightshift: %s\n", res.Reason)
	}
	if len(res.FailsByCheck) > 0 {
		fmt.Fprintf(w, "nightshift: FAILs by check: %s\n", failsByCheck(res.FailsByCheck))
	}
}

// failsByCheck renders the FAIL counts, most first, then by name:
// "min-chars 2, judge 1" (seed 000's homework: which check catches more).
func failsByCheck(m map[string]int) string {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, m[n])
	}
	return strings.Join(parts, ", ")
}

func (s *session) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]() //nolint:errcheck // best effort at exit
	}
}
