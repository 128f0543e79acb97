package fallback

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// DefaultCooldown is how long the primary rests after a failure that
// named no Retry-After.
const DefaultCooldown = 60 * time.Second

// Reason says why a call went to the fallback.
type Reason string

const (
	// Exhausted: the primary's retries ran out on a timing failure.
	Exhausted Reason = "exhausted"
	// Empty: the primary answered empty twice in a row.
	Empty Reason = "empty"
	// Quota: the primary's quota or spend limit refused the call, and
	// Config.OnQuota says to fall back on it.
	Quota Reason = "quota"
	// Resting: the primary rests after an earlier failure.
	Resting Reason = "resting"
	// Unavailable: the circuit breaker of the primary's endpoint is open
	// (package breaker), or the call's failure opened it: the endpoint is
	// down for every caller, and the fallback, on its own endpoint's
	// breaker, takes the call instead of waiting.
	Unavailable Reason = "unavailable"
)

// Config configures a Model. Zero fields take the defaults named.
type Config struct {
	// Primary and Fallback are the model names sent with each model's
	// requests (llm.Request.Model); empty leaves the request's as it is
	// for the primary and lets the fallback's provider choose.
	Primary, Fallback string
	// OnQuota sends a call refused for quota or spend limit to the
	// fallback too (`--fallback-on quota`). Default false: such a
	// failure ends the call as it would without a fallback, so that a
	// spent account is seen, not hidden.
	OnQuota bool
	// Cooldown is how long the primary rests after a failure that named
	// no Retry-After; default DefaultCooldown (60 s).
	Cooldown time.Duration
	// Clock times the rest; default clock.Real{}.
	Clock clock.Clock
	// OnFallback, when set, is told of every call a failure sends to the
	// fallback (not of the calls made while the primary rests).
	OnFallback func(Event)
	// Rest, when set, is the primary's rest, shared with the other
	// Models that put the same primary first (a run's worker and its
	// judge, when the judge is the worker's own model): a primary that
	// failed for one of them rests for all. Default: the Model's own.
	Rest *Rest
}

// Rest is when a primary may be called again. The zero value is a
// primary that is not resting. It is safe for concurrent use.
type Rest struct {
	mu    sync.Mutex
	until time.Time
}

// extend makes the rest last until t, if that is later.
func (r *Rest) extend(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.After(r.until) {
		r.until = t
	}
}

// at reports whether the primary rests at now.
func (r *Rest) at(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return now.Before(r.until)
}

// Event is a call sent to the fallback by a failure of the primary.
type Event struct {
	Reason Reason
	// From and To are the two models' names.
	From, To string
	// Err is the primary's failure (nil for Empty).
	Err error
	// Until is when the primary will be tried again.
	Until time.Time
	// Wasted is the usage of the primary's empty answers (Empty).
	Wasted llm.Usage
}

// Line is the event's human detail, for `[fallback · …]`.
func (e Event) Line() string { return e.Event().Detail }

// Event returns the fallback event (docs/events.md), as
// event.NewFallback makes it: every caller that reports a call sent to
// the fallback, the loop and the night's roles alike, reports it this
// way.
func (e Event) Event() event.Event {
	return event.NewFallback(event.FallbackInfo{Reason: string(e.Reason), From: e.From, To: e.To, Until: e.Until, Err: e.Err, Wasted: e.Wasted})
}

// Model is an llm.Model that answers from the primary, or from the
// fallback when the primary cannot. It is safe for concurrent use.
type Model struct {
	primary, second llm.Model
	cfg             Config
	rest            *Rest
}

var _ llm.Model = (*Model)(nil)

// New returns a Model over primary and fallback, each already behind its
// own retry layer.
func New(primary, fallback llm.Model, cfg Config) *Model {
	cfg.Cooldown = cmp.Or(cfg.Cooldown, DefaultCooldown)
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	rest := cfg.Rest
	if rest == nil {
		rest = &Rest{}
	}
	return &Model{primary: primary, second: fallback, cfg: cfg, rest: rest}
}

// Generate answers req from the primary, or from the fallback when the
// primary rests, its retries ran out on a timing failure, its endpoint's
// circuit breaker is open, it answered empty twice in a row, or
// (OnQuota) its quota refused the call.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if m.resting() {
		return m.onFallback(ctx, req)
	}
	p := m.forPrimary(req)
	resp, err := m.primary.Generate(ctx, p)
	var wasted llm.Usage
	if err == nil && empty(resp) {
		// Once more on the primary: one empty answer is a model's
		// stumble, two in a row a model that will not answer this.
		wasted = resp.Usage
		resp, err = m.primary.Generate(ctx, p)
		if err == nil && empty(resp) {
			wasted = wasted.Add(resp.Usage)
			m.fellBack(Event{Reason: Empty, From: p.Model, Wasted: wasted}, m.cfg.Cooldown)
			return m.onFallback(ctx, req)
		}
	}
	if err == nil {
		return resp, nil
	}
	reason, ok := m.falls(ctx, err)
	if !ok {
		return nil, err
	}
	rest := m.cfg.Cooldown
	var e *llm.Error
	var ue *breaker.UnavailableError
	switch {
	case errors.As(err, &ue):
		// Until the breaker lets a probe through: the first call after
		// it tries the primary, and may be the probe. With a probe out
		// already, one cool-off at most.
		rest = min(rest, ue.Cool)
		if d := ue.Until.Sub(m.cfg.Clock.Now()); d > 0 {
			rest = d
		}
	case errors.As(err, &e) && e.RetryAfter > 0:
		rest = e.RetryAfter
	}
	m.fellBack(Event{Reason: reason, From: p.Model, Err: err, Wasted: wasted}, rest)
	return m.onFallback(ctx, req)
}

// falls says whether err sends the call to the fallback, and why.
func (m *Model) falls(ctx context.Context, err error) (Reason, bool) {
	if ctx.Err() != nil {
		return "", false // the caller stopped: no model can help
	}
	if errors.Is(err, breaker.ErrUnavailable) {
		return Unavailable, true
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		return "", false // not the provider's failure (a budget refusal, say)
	}
	switch c := e.Class; {
	case c.Retryable():
		return Exhausted, true
	case c == llm.Quota && m.cfg.OnQuota:
		return Quota, true
	}
	return "", false
}

// fellBack rests the primary for d and reports ev.
func (m *Model) fellBack(ev Event, d time.Duration) {
	ev.Until = m.cfg.Clock.Now().Add(d)
	// From is the model the primary's request named: Config.Primary, or
	// the request's own (the judge's).
	ev.To = m.cfg.Fallback
	m.rest.extend(ev.Until)
	if m.cfg.OnFallback != nil {
		m.cfg.OnFallback(ev)
	}
}

func (m *Model) resting() bool { return m.rest.at(m.cfg.Clock.Now()) }

// forPrimary and onFallback send req with each model's own name.
func (m *Model) forPrimary(req *llm.Request) *llm.Request {
	if m.cfg.Primary == "" || req.Model == m.cfg.Primary {
		return req
	}
	r := *req
	r.Model = m.cfg.Primary
	return &r
}

func (m *Model) onFallback(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r := *req
	r.Model = m.cfg.Fallback
	return m.second.Generate(ctx, &r)
}

// empty reports whether a reply says nothing: no tool call and no text,
// ending its turn (a reply cut off or refused is something else).
func empty(r *llm.Response) bool {
	if r.StopReason != llm.EndTurn && r.StopReason != llm.Unknown {
		return false
	}
	for _, b := range r.Content {
		if b.Type == llm.ToolUseBlock || (b.Type == llm.TextBlock && strings.TrimSpace(b.Text) != "") {
			return false
		}
	}
	return true
}
