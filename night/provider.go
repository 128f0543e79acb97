package night

import (
	"fmt"
	"slices"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/endpoint"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// A provider that is down is one failure, not a thousand (issue 26): the
// first attempt of a worker that ends unavailable (its endpoint's circuit
// breaker stayed open past the retry budget) is charged once, to the
// worker, as waiting-for-provider. The worker sits out while the breaker
// is open and comes back when it closes: no task is charged, no skip list
// grows, the second-failure rule does not count it, and the night's other
// workers (and the role's next model, on another endpoint) carry on. At
// each cool-off's end the worker is let through again, so that one of its
// calls probes the endpoint.

// Breakers returns a circuit breaker for each of the pipeline's models
// from reg, one state per endpoint and credential (as Limiters keys
// them), each with the configuration of the first role that lists the
// model (roles.ROLE.breaker) and the night's clock. Each role's calls
// apply the role's own breaker: key to it (the builder's attempts, its
// judge and fallback; the proposer's and the judge's calls and their
// fallbacks).
func Breakers(p *Pipeline, reg *breaker.Breakers, clk clock.Clock, getenv func(string) string) map[string]*breaker.Breaker {
	out := make(map[string]*breaker.Breaker, len(p.Models))
	for _, name := range p.modelNames() {
		m := p.Models[name]
		credential := "model " + name
		if env := m.KeyEnv(); env != "" {
			credential = getenv(env)
		}
		k := endpoint.Of(m.Provider, m.BaseURL, credential, getenv)
		cfg := p.breakerConfig(name)
		cfg.Clock = clk
		out[name] = reg.For(k.Endpoint(), credential, cfg)
	}
	return out
}

// modelNames are the pipeline's model names, sorted: the first role to
// claim an endpoint's breaker is the same on every run.
func (p *Pipeline) modelNames() []string {
	names := make([]string, 0, len(p.Models))
	for n := range p.Models {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// roleBreaker is breaker b (a model's endpoint's) under role's
// breaker: key, for the calls of that role (breaker.Breaker.With): the
// state is the endpoint's, shared with every role and process that calls
// it; the threshold and cool-off applied to the role's calls are the
// role's own. nil gives nil.
func (p *Pipeline) roleBreaker(role ledger.Role, b *breaker.Breaker) *breaker.Breaker {
	if b == nil {
		return nil
	}
	var cfg breaker.Config
	if r := p.Roles[role]; r != nil {
		cfg = breaker.Config{Failures: r.Spec.BreakerFailures, Cool: time.Duration(r.Spec.BreakerCool)}
	}
	return b.With(cfg)
}

// fallback is role's fallback model for worker (Fallback), behind the
// circuit breaker of the fallback's own endpoint under the role's
// settings: never the worker's, whose endpoint may be the one down.
func (p *Pipeline) fallback(role ledger.Role, worker string, models map[string]llm.Model, limiters map[string]*retry.Limiter,
	breakers map[string]*breaker.Breaker) *agent.Fallback {
	fb := p.Fallback(role, worker, models, limiters)
	if fb != nil {
		fb.Breaker = p.roleBreaker(role, breakers[p.Roles[role].FallbackModel])
	}
	return fb
}

// breakerConfig is the breaker configuration of model name: that of the
// first role (builder, proposer, judge) that lists it. It is the
// configuration of the breakers made for the models; each role's calls
// go through them under its own (roleBreaker).
func (p *Pipeline) breakerConfig(name string) breaker.Config {
	for _, role := range []ledger.Role{ledger.Builder, ledger.Proposer, ledger.Judge} {
		r := p.Roles[role]
		if r != nil && slices.Contains(r.Models, name) {
			return breaker.Config{Failures: r.Spec.BreakerFailures, Cool: time.Duration(r.Spec.BreakerCool)}
		}
	}
	return breaker.Config{}
}

// waitingOn reports whether worker w sits out, waiting for its provider:
// it was charged waiting-for-provider tonight and its breaker is still
// open, its cool-off not over (then a call of its may probe).
func (s *scheduler) waitingOn(st *tonight, w worker) bool {
	if _, charged := st.waiting[w]; !charged {
		return false
	}
	b := s.cfg.Breakers[w.model]
	if b == nil {
		return false
	}
	switch bs := b.Status(); bs.State {
	case breaker.Open:
		return s.clk.Now().Before(bs.Until)
	case breaker.HalfOpen:
		return true
	}
	return false
}

// chargeWait reports whether an unavailable attempt of w is the first of
// its outage, to be charged: the worker was not charged for it tonight
// already (a charge after the outage began, or for an outage just over).
func (s *scheduler) chargeWait(st *tonight, w worker) bool {
	at, charged := st.waiting[w]
	if !charged {
		return true
	}
	b := s.cfg.Breakers[w.model]
	if b == nil {
		return false
	}
	since := b.Status().Since
	return !since.IsZero() && at.Before(since)
}

// nextProbe is how long until the first waiting worker's cool-off ends,
// or 0 when none waits.
func (s *scheduler) nextProbe(st *tonight) time.Duration {
	var next time.Duration
	now := s.clk.Now()
	for w := range st.waiting {
		b := s.cfg.Breakers[w.model]
		if b == nil || !s.waitingOn(st, w) {
			continue
		}
		d := time.Second
		if bs := b.Status(); bs.State == breaker.Open {
			d = max(bs.Until.Sub(now), time.Millisecond)
		}
		if next == 0 || d < next {
			next = d
		}
	}
	return next
}

// providerDown reports, at the window's end, whether some role could not
// work because every one of its workers that is not out waits for its
// provider, and says so.
func (s *scheduler) providerDown(st *tonight) (string, bool) {
	for _, role := range []ledger.Role{ledger.Builder, ledger.Judge, ledger.Proposer} {
		r := s.p.Roles[role]
		if r == nil {
			continue
		}
		waiting, usable := 0, 0
		for _, m := range r.Models {
			w := worker{role, m}
			if _, out := st.out[w]; out {
				continue
			}
			if s.waitingOn(st, w) {
				waiting++
				continue
			}
			usable++
		}
		if waiting > 0 && usable == 0 {
			return fmt.Sprintf("every %s worker waited for its provider past the window's end", role), true
		}
	}
	return "", false
}
