package breaker_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

var epoch = time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)

const (
	endpoint = "anthropic http://127.0.0.1:9"
	key      = "sk-ant-made-up-for-the-test"
)

var (
	refused    = &llm.Error{Class: llm.Connection, Message: "connection refused"}
	overloaded = &llm.Error{Class: llm.Overloaded, Status: 529}
	limited    = &llm.Error{Class: llm.RateLimited, Status: http.StatusTooManyRequests}
)

// setup returns n breakers of one endpoint sharing a folder, as n
// processes would, on one fake clock, and the events they emit.
func setup(t *testing.T, n int, cfg breaker.Config) ([]*breaker.Breaker, *clock.Fake, *event.Recorder) {
	t.Helper()
	dir, c := t.TempDir(), clock.NewFake(epoch)
	cfg.Clock = c
	var bs []*breaker.Breaker
	for range n {
		b, err := breaker.Share(cfg, breaker.Host(endpoint), dir, endpoint, key)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := b.Close(); err != nil {
				t.Error(err)
			}
		})
		bs = append(bs, b)
	}
	return bs, c, &event.Recorder{}
}

// call admits one call on b without waiting and records err for it.
func call(t *testing.T, b *breaker.Breaker, err error, rec *event.Recorder) {
	t.Helper()
	tk, _, aerr := b.Admit(context.Background(), 0, rec.Emit)
	if aerr != nil {
		t.Fatalf("admit: %v", aerr)
	}
	tk.Record(err, rec.Emit)
}

func lines(rec *event.Recorder) []string {
	var out []string
	for _, e := range rec.Events() {
		out = append(out, e.Line())
	}
	return out
}

func TestTheBreakerStateMachine(t *testing.T) {
	ctx := context.Background()
	cfg := breaker.Config{Failures: 5, Cool: 30 * time.Second}

	t.Run("outage failures across processes open it at the threshold", func(t *testing.T) {
		bs, _, rec := setup(t, 2, cfg)
		for i := range 4 {
			call(t, bs[i%2], refused, rec)
		}
		if got := bs[0].Status().State; got != breaker.Closed {
			t.Fatalf("after 4 failures the state is %s, want closed", got)
		}
		call(t, bs[1], overloaded, rec)
		if diff := cmp.Diff([]string{"[breaker · open endpoint=127.0.0.1:9 failures=5 cool=30s]"}, lines(rec)); diff != "" {
			t.Error(diff)
		}
		if got := bs[0].Status().State; got != breaker.Open {
			t.Errorf("the other process sees it %s, want open", got)
		}
	})

	t.Run("an answer of a server that is up ends the run of failures", func(t *testing.T) {
		bs, _, rec := setup(t, 1, cfg)
		for _, err := range []error{refused, refused, refused, refused, limited, refused, refused, refused, refused, nil, refused} {
			call(t, bs[0], err, rec)
		}
		if st := bs[0].Status(); st.State != breaker.Closed || st.Failures != 1 {
			t.Errorf("status %+v, want closed with 1 failure", st)
		}
	})

	t.Run("while open no call goes out, and a wait past the limit is not begun", func(t *testing.T) {
		bs, c, rec := setup(t, 1, cfg)
		for range 5 {
			call(t, bs[0], refused, rec)
		}
		_, waited, err := bs[0].Admit(ctx, 10*time.Second, rec.Emit)
		var ue *breaker.UnavailableError
		if !errors.As(err, &ue) || !errors.Is(err, breaker.ErrUnavailable) {
			t.Fatalf("admit within 10s of a 30s cool-off: %v, want an UnavailableError", err)
		}
		if waited != 0 || !c.Now().Equal(epoch) || ue.Failures != 5 || ue.Endpoint != "127.0.0.1:9" {
			t.Errorf("waited %s (clock %s), error %+v", waited, c.Now(), ue)
		}
	})

	t.Run("after the cool-off exactly one caller probes and its success closes it for all", func(t *testing.T) {
		bs, c, rec := setup(t, 3, cfg)
		for range 5 {
			call(t, bs[0], refused, rec)
		}
		probe, waited, err := bs[1].Admit(ctx, time.Minute, rec.Emit)
		if err != nil || !probe.Probe() || waited != 30*time.Second {
			t.Fatalf("first caller: probe %v, waited %s, %v; want the probe after 30s", probe.Probe(), waited, err)
		}
		// The others wait on the probe, and give up at their limit.
		if _, _, err := bs[2].Admit(ctx, 5*time.Second, rec.Emit); !errors.Is(err, breaker.ErrUnavailable) {
			t.Fatalf("a second caller while the probe is out: %v, want unavailable", err)
		}
		if got := bs[0].Status().State; got != breaker.HalfOpen {
			t.Errorf("state during the probe %s, want half-open", got)
		}
		c.Advance(12 * time.Second)
		probe.Record(nil, rec.Emit)
		tk, waited, err := bs[2].Admit(ctx, 0, rec.Emit)
		if err != nil || tk.Probe() || waited != 0 {
			t.Errorf("after the close: probe %v, waited %s, %v; want a call at once", tk.Probe(), waited, err)
		}
		want := []string{
			"[breaker · open endpoint=127.0.0.1:9 failures=5 cool=30s]",
			"[breaker · probe endpoint=127.0.0.1:9]",
			"[breaker · closed endpoint=127.0.0.1:9 open_for=47s]",
		}
		if diff := cmp.Diff(want, lines(rec)); diff != "" {
			t.Error(diff)
		}
	})

	t.Run("a failed probe opens it again for another cool-off", func(t *testing.T) {
		bs, c, rec := setup(t, 2, cfg)
		early, _, _ := bs[1].Admit(ctx, 0, rec.Emit) // goes out before the outage is known
		for range 5 {
			call(t, bs[0], refused, rec)
		}
		probe, _, err := bs[0].Admit(ctx, time.Minute, rec.Emit)
		if err != nil {
			t.Fatal(err)
		}
		if open := probe.Record(overloaded, rec.Emit); !open {
			t.Error("Record after a failed probe says closed")
		}
		st := bs[1].Status()
		if st.State != breaker.Open || !st.Until.Equal(c.Now().Add(30*time.Second)) || !st.Since.Equal(epoch) {
			t.Errorf("status %+v, want open until %s since %s", st, c.Now().Add(30*time.Second), epoch)
		}
		// A failure of a call that went out before the breaker opened
		// changes nothing.
		early.Record(refused, rec.Emit)
		if got := bs[0].Status(); got.State != breaker.Open || !got.Until.Equal(st.Until) {
			t.Errorf("after a late failure: %+v, want open until %s still", got, st.Until)
		}
		if got := len(rec.Events()); got != 3 {
			t.Errorf("%d events, want open, probe, open: %v", got, lines(rec))
		}
	})

	t.Run("the answer of a call from before the outage does not close it", func(t *testing.T) {
		bs, _, rec := setup(t, 2, cfg)
		slow, _, _ := bs[1].Admit(ctx, 0, rec.Emit)
		for range 5 {
			call(t, bs[0], refused, rec)
		}
		slow.Record(nil, rec.Emit)
		if got := bs[0].Status().State; got != breaker.Open {
			t.Errorf("state %s after a late success, want open: only the probe closes it", got)
		}
	})

	t.Run("a probe whose context ended lets the next caller probe at once", func(t *testing.T) {
		bs, _, rec := setup(t, 2, cfg)
		for range 5 {
			call(t, bs[0], refused, rec)
		}
		probe, _, _ := bs[0].Admit(ctx, time.Minute, rec.Emit)
		probe.Record(context.Canceled, rec.Emit)
		next, waited, err := bs[1].Admit(ctx, 0, rec.Emit)
		if err != nil || !next.Probe() || waited != 0 {
			t.Errorf("next caller: probe %v, waited %s, %v; want the probe at once", next.Probe(), waited, err)
		}
	})
}

func TestOnlyOutageFailuresCount(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{refused, true},
		{overloaded, true},
		{&llm.Error{Class: llm.Transient, Status: 502}, true},
		{limited, false},
		{&llm.Error{Class: llm.BadRequest, Status: 400}, false},
		{&llm.Error{Class: llm.Timeout}, false},
		{context.Canceled, false},
	} {
		if got := breaker.Counts(tc.err); got != tc.want {
			t.Errorf("Counts(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestEachCallerIsHeldToItsOwnSettings is a regression test: the first
// run of a process to call an endpoint set its breaker's threshold and
// cool-off, and a batch's later tasks (or a pipeline's other roles) with
// breaker: keys of their own were held to them. The state is one per
// endpoint and credential; each caller's settings apply to its own calls:
// a strict task's failure opens it at the strict threshold after a
// tolerant task's failures, for the strict task's cool-off, and a
// tolerant task's failures alone do not open it before its own
// threshold.
func TestEachCallerIsHeldToItsOwnSettings(t *testing.T) {
	ctx := context.Background()
	c := clock.NewFake(epoch)
	reg := breaker.NewBreakers("", nil)
	tolerant := reg.For(endpoint, key, breaker.Config{Failures: 10, Cool: time.Hour, Clock: c})
	strict := reg.For(endpoint, key, breaker.Config{Failures: 4, Cool: 5 * time.Second})
	rec := &event.Recorder{}
	for range 3 {
		call(t, tolerant, refused, rec)
	}
	if got := strict.Status(); got.State != breaker.Closed || got.Failures != 3 {
		t.Fatalf("after the tolerant task's 3 failures the strict task sees %+v, want closed with 3: one state", got)
	}
	call(t, tolerant, refused, rec)
	if got := strict.Status().State; got != breaker.Closed {
		t.Fatalf("the tolerant task's 4th failure opened it (%s): its threshold is 10", got)
	}
	call(t, strict, refused, rec)
	if diff := cmp.Diff([]string{"[breaker · open endpoint=127.0.0.1:9 failures=5 cool=5s]"}, lines(rec)); diff != "" {
		t.Fatalf("the strict task's failure at 5 in a row, past its threshold of 4 (-want +got):\n%s", diff)
	}
	// Open for every caller, for the cool-off of the call that opened it.
	if _, _, err := tolerant.Admit(ctx, 0, rec.Emit); !errors.Is(err, breaker.ErrUnavailable) {
		t.Fatalf("the tolerant task's call while open: %v, want unavailable", err)
	}
	probe, waited, err := tolerant.Admit(ctx, time.Minute, rec.Emit)
	if err != nil || !probe.Probe() || waited != 5*time.Second {
		t.Fatalf("probe %v after %s (%v): want a probe after the opener's 5s, not the tolerant task's hour", probe.Probe(), waited, err)
	}
	// The tolerant task's probe fails: the spell it opens is its own hour.
	probe.Record(refused, rec.Emit)
	if st := strict.Status(); !st.Until.Equal(c.Now().Add(time.Hour)) {
		t.Errorf("after the tolerant task's failed probe: open until %s, want %s", st.Until, c.Now().Add(time.Hour))
	}
	if got := strict.Config(); got.Clock != c {
		t.Error("a view without a clock of its own does not keep the breaker's")
	}
}
