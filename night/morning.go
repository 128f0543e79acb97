package night

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/nightshift-dev/nightshift/ledger"
)

// What the night leaves for the person who reads it: its setup in the
// ledger (the report draws each night against its own ceilings and
// models), and a "step-start" event as each step begins (the live status
// line of `nightshift night` shows what is being worked on).

// setup is the pipeline as the ledger keeps it with the night.
func (s *scheduler) setup() ledger.Setup {
	out := ledger.Setup{Zone: s.p.Window.Zone, BudgetTokens: s.p.BudgetTokens, WIP: s.p.WIP, Roles: map[ledger.Role]ledger.RoleSetup{},
		Models: map[string]ledger.ModelSetup{}, Pipeline: abs(s.p.file), WorkDir: abs(s.p.Path(s.p.WorkDir)), StateBase: abs(s.cfg.StateBase)}
	for role, r := range s.p.Roles {
		if r != nil {
			out.Roles[role] = ledger.RoleSetup{Models: r.Models, Ceiling: r.Ceiling}
		}
	}
	// A person's `task fail` and `task deny` charge as this night's rules
	// say (a pipeline's rules may change the default rows).
	out.Charges = map[string]ledger.Charge{}
	for _, k := range []Kind{ByHand, Denied} {
		out.Charges[string(k)] = s.rules.Ledger(k, ledger.Builder)
	}
	// The report names a refused key's model and variable, never the key.
	for name, m := range s.p.Models {
		out.Models[name] = ledger.ModelSetup{Provider: m.Provider, Model: s.p.ModelName(name), KeyEnv: m.KeyEnv()}
	}
	return out
}

// abs is path made absolute, when it is set and can be.
func abs(path string) string {
	if a, err := filepath.Abs(path); err == nil && path != "" {
		return a
	}
	return path
}

// recordSetup keeps the night's setup in the ledger, as this process runs
// it.
func (s *scheduler) recordSetup(ctx context.Context, n ledger.Night) error {
	if err := s.l.SetSetup(ctx, n.ID, s.setup(), s.clk.Now()); err != nil {
		return fmt.Errorf("night: record the setup: %w", err)
	}
	return nil
}

// announced returns fn that first says what its step works on: its role
// and worker, its task, its place under the role's ceiling (k of
// ceiling; k counts the role's steps tonight, every process's), the
// night's tokens so far and when the window closes.
func (s *scheduler) announced(st *tonight, c ledger.Claim, title string, fn ledger.StepFunc) ledger.StepFunc {
	k := st.night.Reserved[c.Role] + 1
	tokens, end := st.total, st.night.WindowEnd
	return func(ctx context.Context, step ledger.Step) ledger.SettleFunc {
		detail := fmt.Sprintf("%s/%s", step.Role, step.Worker)
		data := map[string]any{"role": step.Role, "worker": step.Worker, "n": k, "ceiling": c.Ceiling,
			"tokens": tokens, "window_end": end}
		if step.Task != 0 {
			detail += fmt.Sprintf(" task=%d %s", step.Task, strconv.Quote(title))
			data["task"], data["title"] = step.Task, title
		}
		if c.Ceiling > 0 {
			detail += fmt.Sprintf(" %d/%d", k, c.Ceiling)
		} else {
			detail += fmt.Sprintf(" %d", k)
		}
		s.emit("step-start", detail, data)
		return fn(ctx, step)
	}
}
