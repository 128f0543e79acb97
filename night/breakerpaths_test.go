package night_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/retry"
)

// deadEndpoint is a model whose endpoint refuses every connection, and
// counts the calls that reached it.
func deadEndpoint(calls *atomic.Int32) llm.Model {
	return llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls.Add(1)
		return nil, &llm.Error{Provider: "test", Class: llm.Connection, Message: "connection refused"}
	})
}

func upModel(t *testing.T, clk clock.Clock, yaml string) llm.Model {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return scripted.New(sc, scripted.Config{Clock: clk})
}

// attemptWith runs one builder attempt of pipeline's builder b1 with the
// models given, every model with a limiter and a breaker of its own (as
// the night's scheduler gives them: the defaults, 5 failures), and
// returns it with the breakers.
func attemptWith(t *testing.T, pipeline string, models map[string]llm.Model) (night.Attempt, map[string]*breaker.Breaker, *event.Recorder) {
	t.Helper()
	p, err := night.ParsePipeline([]byte(pipeline))
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(dusk)
	lims, brs := map[string]*retry.Limiter{}, map[string]*breaker.Breaker{}
	for name := range models {
		lims[name] = retry.NewLimiter(retry.LimiterConfig{Clock: clk})
		brs[name] = breaker.New(breaker.Config{Clock: clk}, name)
	}
	ev := &event.Recorder{}
	b := &night.AgentBuilder{Models: models, Pipeline: p, Limiters: lims, Breakers: brs, Clock: clk, Events: ev, StateBase: t.TempDir(),
		Retry: retry.Policy{Budget: 10 * time.Minute, Backoff: time.Second}}
	a := b.Attempt(context.Background(), night.Assignment{Worker: "b1", Dir: t.TempDir(), MaxSteps: 10,
		Task: ledger.Task{Title: "build", Body: "write out.txt"}})
	return a, brs, ev
}

// TestABuildersJudgeOnAnotherEndpointHasItsBreaker is a regression test:
// the judge inside a builder's attempt, on a model of its own
// (roles.builder.judge), called its endpoint with no circuit breaker: with
// that endpoint down it was called through all its retries on every
// attempt, and the attempt ended api-failure, a failure of the task. It
// goes through its endpoint's breaker under the builder role's settings
// (failures: 2): two calls open it, the attempt waits on it within the
// retry budget and ends unavailable: the provider, not the task, is down.
func TestABuildersJudgeOnAnotherEndpointHasItsBreaker(t *testing.T) {
	var judgeCalls atomic.Int32
	a, brs, _ := attemptWith(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
  j1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], judge: j1, sandbox: none, breaker: {failures: 2, cool: 1h}}
`, map[string]llm.Model{"b1": upModel(t, clock.Real{}, builderTurns("1ms")), "j1": deadEndpoint(&judgeCalls)})
	if a.Outcome != agent.Unavailable || judgeCalls.Load() != 2 {
		t.Errorf("the attempt ended %s (%s) after %d judge calls; want unavailable after 2, the builder role's threshold",
			a.Outcome, a.Reason, judgeCalls.Load())
	}
	if st := brs["j1"].Status(); st.State != breaker.Open {
		t.Errorf("the judge's breaker is %s, want open", st.State)
	}
	if st := brs["b1"].Status(); st.State != breaker.Closed || st.Failures != 0 {
		t.Errorf("the builder's breaker %+v, want closed and untouched: the judge's endpoint is another", st)
	}
}

// TestABuildersFallbackTakesTheAttemptWhileItsModelsBreakerIsOpen is a
// regression test: with the builder's endpoint down and its breaker
// open, the attempt waited on it past the retry budget and ended
// unavailable, its role's fallback (roles.builder.fallback) never asked.
// The calls go to the fallback, and the attempt ends done.
func TestABuildersFallbackTakesTheAttemptWhileItsModelsBreakerIsOpen(t *testing.T) {
	var bigCalls atomic.Int32
	a, brs, ev := attemptWith(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
  small: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], fallback: small, no_judge: true, sandbox: none, breaker: {failures: 2, cool: 1h}}
`, map[string]llm.Model{"b1": deadEndpoint(&bigCalls), "small": upModel(t, clock.Real{}, builderTurns("1ms"))})
	if a.Outcome != agent.Done || bigCalls.Load() != 2 {
		t.Errorf("the attempt ended %s (%s) after %d calls to b1; want done by the fallback after 2", a.Outcome, a.Reason, bigCalls.Load())
	}
	var fell []string
	for _, e := range ev.Events() {
		if e.Type == event.Fallback {
			fell = append(fell, e.Line())
		}
	}
	if len(fell) != 1 || !strings.Contains(fell[0], ": unavailable;") {
		t.Errorf("fallback events %q, want one, unavailable", fell)
	}
	if st := brs["small"].Status(); st.State != breaker.Closed {
		t.Errorf("the fallback's breaker is %s: it is its own endpoint's, never b1's", st.State)
	}
}

// TestABuildersFallbackHasItsOwnBreaker is a regression test: a role's
// fallback model had no circuit breaker, so with both endpoints down the
// fallback's was called through all its retries and the attempt ended
// api-failure. Its own breaker opens at the builder role's threshold, and
// the attempt ends unavailable.
func TestABuildersFallbackHasItsOwnBreaker(t *testing.T) {
	var bigCalls, smallCalls atomic.Int32
	a, brs, _ := attemptWith(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
  small: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], fallback: small, no_judge: true, sandbox: none, breaker: {failures: 2, cool: 1h}}
`, map[string]llm.Model{"b1": deadEndpoint(&bigCalls), "small": deadEndpoint(&smallCalls)})
	if a.Outcome != agent.Unavailable || bigCalls.Load() != 2 || smallCalls.Load() != 2 {
		t.Errorf("the attempt ended %s (%s) after %d calls to b1 and %d to its fallback; want unavailable after 2 each",
			a.Outcome, a.Reason, bigCalls.Load(), smallCalls.Load())
	}
	if brs["b1"].Status().State != breaker.Open || brs["small"].Status().State != breaker.Open {
		t.Errorf("breakers b1 %s, small %s: want both open", brs["b1"].Status().State, brs["small"].Status().State)
	}
}

// TestAProposerWhoseProviderIsDownWaitsForIt is a regression test: a
// proposer's call that met its endpoint's breaker open past the retry
// budget (a *breaker.UnavailableError, no failure class) was charged as
// a failed step of the proposer, again at each cool-off's probe. It is
// charged once, waiting for the provider, as a builder's attempt is, and
// the proposer's fallback on another endpoint goes through its own
// breaker: with both down it is called only as often as that breaker
// lets it.
func TestAProposerWhoseProviderIsDownWaitsForIt(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  p1: {provider: scripted, scenario: unused.yaml}
  p2: {provider: scripted, scenario: unused.yaml}
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [p1], fallback: p2, breaker: {failures: 1, cool: 1h}}
  builder: {models: [b1], no_judge: true, sandbox: none}
`)
	var p1Calls, p2Calls atomic.Int32
	models := map[string]llm.Model{"p1": deadEndpoint(&p1Calls), "p2": deadEndpoint(&p2Calls), "b1": upModel(t, f.clk, builderTurns("1m"))}
	sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk, Idle: time.Hour,
		Retry: retry.Policy{Budget: 10 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	fs := f.failures(sum.Night)
	if len(fs) != 1 || fs[0].Rule != string(night.WaitingForProvider) || fs[0].Worker != "p1" {
		t.Errorf("failures %v, want one waiting-for-provider of p1", rules(fs))
	}
	// Each endpoint: its first failure opens its breaker, then one probe
	// per cool-off of an hour at most, over the 8-hour window.
	if n := p1Calls.Load(); n == 0 || n > 9 {
		t.Errorf("%d calls to p1, want 1 to 9: one per cool-off", n)
	}
	if n := p2Calls.Load(); n == 0 || n > 9 {
		t.Errorf("%d calls to the fallback p2, want 1 to 9: one per cool-off of its own breaker", n)
	}
	t.Logf("end %s (%s); p1 %d calls, p2 %d calls; %v", sum.Night.End, sum.Night.Reason, p1Calls.Load(), p2Calls.Load(), rules(fs))
}
