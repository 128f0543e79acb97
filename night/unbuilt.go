package night

import (
	"context"
	"fmt"
	"slices"

	"github.com/nightshift-dev/nightshift/ledger"
)

// chargeUnbuilt charges, before the night's first step, a config failure
// for each real provider's model a role works on (or falls back to) that
// was not built for want of its key (BuildModels leaves those out),
// naming the variable, so that a person reads what to set, and the
// proposer and the judge have not spent a call before the builder finds
// out (issue 17). By the default rules a config failure is the system's:
// the night stops, and `night` exits 8. A scripted model a program left
// out is charged when a step needs it, as before. The builder's models
// are checked only when the default builder runs them (Config.Builder
// unset).
func (s *scheduler) chargeUnbuilt(ctx context.Context, n ledger.Night) error {
	for _, role := range []ledger.Role{ledger.Proposer, ledger.Judge, ledger.Builder} {
		r := s.p.Roles[role]
		if r == nil || (role == ledger.Builder && !s.defaultBuilder) {
			continue
		}
		names := slices.Clone(r.Models)
		if r.FallbackModel != "" && !slices.Contains(names, r.FallbackModel) {
			names = append(names, r.FallbackModel)
		}
		for _, name := range names {
			m := s.p.Models[name]
			if s.cfg.Models[name] != nil || !m.needsKey() {
				continue
			}
			detail := fmt.Sprintf("models.%s (%s) needs its key: %s is not set", name, m.Provider, m.KeyEnv())
			rule := s.rules.Charge(ConfigError, role)
			f, err := s.l.AddFailure(ctx, ledger.Failure{Night: n.ID, Role: role, Worker: name, Scope: rule.Scope,
				Rule: string(ConfigError), Reason: withDetail(rule.Reason, detail), At: s.clk.Now()})
			if err != nil {
				return err
			}
			w := worker{role, name}
			s.emit("failure", fmt.Sprintf("%s %s: %s", f.Scope, f.Rule, f.Reason),
				map[string]any{"scope": f.Scope, "rule": f.Rule, "task": int64(0), "worker": w.String()})
		}
	}
	return nil
}
