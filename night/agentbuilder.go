package night

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/command"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/workspace"
)

// AgentBuilder is the default Builder: each attempt is a whole agent run
// (tools, verifier, gate, journal and rollback, step brake) in the task's
// own workspace folder.
type AgentBuilder struct {
	// Models are the builder's models by pipeline name.
	Models map[string]llm.Model
	// ModelNames maps a pipeline model name to the provider's model name;
	// default "" (the provider's default).
	ModelNames map[string]string
	// Tools returns the tools of one attempt; default the file tools and
	// run_command, as `nightshift run` has (the gate decides which run).
	Tools func(root *workspace.Root) []tool.Tool
	// Verifier checks each attempt's end; default the not-empty rule.
	Verifier *verify.Verifier
	// Policy is the gate's policy; the zero Policy is gate.DefaultSpec
	// (commands wait for a person, so they park).
	Policy gate.Policy
	// Audit receives the gate's decisions too; default none.
	Audit gate.Auditor
	// Clock and Events are handed to each run.
	Clock  clock.Clock
	Events event.Sink
	// StateDir is the state directory (statedir.Base) under which each
	// task workspace's journal lives, outside the workspace; default
	// statedir.Base("").
	StateDir string
}

var _ Builder = (*AgentBuilder)(nil)

// Attempt runs one agent on the task in a.Dir. A run that does not end done
// is rolled back, so a failed attempt leaves the workspace as it found it.
func (b *AgentBuilder) Attempt(ctx context.Context, a Assignment) Attempt {
	m := b.Models[a.Worker]
	if m == nil {
		return Attempt{Outcome: agent.Usage, Reason: fmt.Sprintf("model %q was not built", a.Worker)}
	}
	fail := func(err error) Attempt { return Attempt{Outcome: agent.Failed, Reason: err.Error(), Err: err} }
	if err := os.MkdirAll(a.Dir, 0o755); err != nil {
		return fail(err)
	}
	root, err := workspace.Open(a.Dir)
	if err != nil {
		return fail(err)
	}
	defer root.Close() //nolint:errcheck // read-only handle
	clk := b.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	runID := agent.NewRunID(clk.Now())
	state, err := workspaceState(b.StateDir, root.Dir())
	if err != nil {
		return fail(err)
	}
	j, err := journal.Begin(root.Dir(), state, runID)
	if errors.Is(err, journal.ErrNeedsRecovery) {
		if err = recoverWorkspace(b.StateDir, a.Dir); err == nil {
			j, err = journal.Begin(root.Dir(), state, runID)
		}
	}
	if err != nil {
		return fail(err)
	}
	root.SetGuard(j.Before)
	root.SetAfter(j.After)
	j.OnChange(root.AddChanged)
	env := append(command.SafeEnv(os.Environ()), journal.Mark(state))
	tools := append(fs.Tools(root), command.New(command.Config{Dir: root.Dir(), Env: env}))
	if b.Tools != nil {
		tools = b.Tools(root)
	}
	set, err := tool.NewSet(tools...)
	if err != nil {
		j.Rollback() //nolint:errcheck // nothing changed yet
		return fail(err)
	}
	// Nobody is at the terminal: a call that needs a person parks the
	// task, unless a person approved exactly this call already.
	keys := make([]string, 0, len(a.Approved))
	for _, p := range a.Approved {
		keys = append(keys, p.Action)
	}
	used := &gateWatch{approved: a.Approved, policy: b.Policy, next: b.Audit}
	g := gate.New(gate.Config{Policy: b.Policy, Asker: gate.Parker, Approved: gate.NewApprovals(keys...), Audit: used, Clock: clk})
	res := agent.Run(ctx, agent.Config{
		Model: m, ModelName: b.ModelNames[a.Worker], System: a.System, Tools: set, Root: root,
		MaxSteps: a.MaxSteps, Verifier: b.Verifier, Gate: g, Events: b.Events, Clock: clk, RunID: runID,
		Snapshots: j,
	}, taskText(a.Task.Title, a.Task.Body))
	if res.Outcome == agent.Done {
		err = j.Commit()
	} else {
		_, err = j.Rollback()
	}
	out := Attempt{Outcome: res.Outcome, Answer: res.Answer, Reason: res.Reason, Checks: res.FailedChecks,
		Tokens: res.Usage.Total(), Calls: res.Steps, Err: res.Err, UsedApprovals: used.used}
	if len(used.refused) > 0 && res.Outcome != agent.Done {
		// Seed 003's builder was refused a tool, then said nothing: the
		// ledger says both, so the morning reader sees the cause.
		out.Reason = strings.Join(used.refused, "; ") + "; then " + res.Reason
	}
	if res.Parked != nil {
		out.Park = &ParkRequest{Action: gate.Key(res.Parked.Tool, res.Parked.Input),
			Reason: fmt.Sprintf("the gate asks a person before a %s-class tool runs", res.Parked.Class)}
	}
	if err != nil && res.Outcome == agent.Done {
		f := fail(fmt.Errorf("keep the attempt's changes: %w", err))
		f.Tokens, f.Calls = out.Tokens, out.Calls
		return f
	}
	return out
}

func taskText(title, body string) string {
	if body == "" {
		return title
	}
	return title + "\n\n" + body
}

// gateWatch watches the gate's audit: calls allowed by an earlier
// approval, so the ledger can mark those approvals used, and calls the
// gate refused, so a failed attempt's reason names them.
type gateWatch struct {
	approved []ledger.ParkedAction
	policy   gate.Policy
	next     gate.Auditor
	mu       sync.Mutex
	used     []int64
	refused  []string
}

func (u *gateWatch) Record(e gate.Entry) error {
	u.mu.Lock()
	switch {
	case e.By == gate.ByApproval:
		for _, p := range u.approved {
			if strings.HasPrefix(p.Action, e.Tool+" ") && !slices.Contains(u.used, p.ID) {
				u.used = append(u.used, p.ID)
			}
		}
	case e.Decision == string(gate.Deny):
		u.refused = append(u.refused, fmt.Sprintf("%s was refused by %s (rule %s)", e.Tool, e.By, u.policy.Rule(e.Tool, e.Class)))
	}
	u.mu.Unlock()
	if u.next != nil {
		return u.next.Record(e)
	}
	return nil
}

// RecoverWorkspace restores a task's workspace after a crash, as
// `nightshift recover` does: every journal a dead run left (in the default
// state directory, or in the workspace's .nightshift/ from an earlier
// version) is rolled back. A folder that does not exist has nothing to
// restore.
func RecoverWorkspace(dir string) error { return recoverWorkspace("", dir) }

func recoverWorkspace(base, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	state, err := workspaceState(base, dir)
	if err != nil {
		return err
	}
	_, err = journal.Recover(dir, state)
	return err
}

// workspaceState returns the state folder of the workspace dir under the
// state directory base ("" for the default), creating it.
func workspaceState(base, dir string) (string, error) {
	b, err := statedir.Base(base)
	if err != nil {
		return "", err
	}
	return statedir.Workspace(b, dir)
}
