package breaker

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/flock"
	"github.com/nightshift-dev/nightshift/llm"
)

// Defaults of a Config's zero fields.
const (
	DefaultFailures = 5
	DefaultCool     = 30 * time.Second
)

// probeLease is how long a probe may go unanswered before another caller
// takes it over although the prober's process is alive: a probe is one
// call, which the call timeout bounds long before this.
const probeLease = 15 * time.Minute

// Config is one breaker's configuration. Every zero field takes its
// default.
type Config struct {
	// Failures is how many outage failures in a row (a failed connection,
	// a 5xx, a 529), counted across every caller that shares the breaker,
	// open it. Default 5 (DefaultFailures).
	Failures int
	// Cool is how long it stays open before one caller probes. Default
	// 30s (DefaultCool).
	Cool time.Duration
	// Clock tells the time and waits. Default clock.Real{}.
	Clock clock.Clock
	// Poll is how often a caller waiting on a probe looks again. Default
	// a tenth of Cool, within [10ms, 1s].
	Poll time.Duration
}

func (c Config) withDefaults() Config {
	c.Failures = cmp.Or(max(c.Failures, 0), DefaultFailures)
	c.Cool = cmp.Or(max(c.Cool, 0), DefaultCool)
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Poll <= 0 {
		c.Poll = min(max(c.Cool/10, 10*time.Millisecond), time.Second)
	}
	return c
}

// The states of a breaker, as the shared file and the breaker event name
// them.
const (
	Closed   = "closed"
	Open     = "open"
	HalfOpen = "half-open"
)

// Breaker is the circuit breaker of one endpoint under one credential,
// under one caller's configuration. It is safe for concurrent use; with a
// shared file (Share), every process of the machine that shares the same
// endpoint's breaker sees one state.
//
// The state (closed, open, half-open, the failures in a row, the probe)
// is one per endpoint and credential: it says whether the endpoint is
// down, for every caller. The configuration is the caller's, applied to
// its own calls (With): a call's outage failure opens the breaker when
// the failures in a row, counted across every caller, reach that call's
// Failures, and the spell it opens (or opens again, as a failed probe)
// lasts that call's Cool. Once open, it is open for every caller. This is
// how separate processes with their own settings have always shared a
// breaker's file; a batch's tasks and a pipeline's roles share one the
// same way.
type Breaker struct {
	cfg Config
	*core
}

// core is the state the views of one breaker share.
type core struct {
	host string
	id   string // this breaker's prober name: pid/token
	seq  atomic.Uint64

	mu    sync.Mutex
	local state         // the state, when not shared
	file  *flock.Shared // nil: this process alone
}

// New returns a breaker of endpoint host (as the events name it) that
// keeps its state in this process.
func New(cfg Config, host string) *Breaker {
	var tok [6]byte
	rand.Read(tok[:]) //nolint:errcheck // never fails (crypto/rand)
	return &Breaker{cfg: cfg.withDefaults(), core: &core{host: host, id: fmt.Sprintf("%d/%s", os.Getpid(), hex.EncodeToString(tok[:]))}}
}

// With returns the same breaker (one state, shared with b and its other
// views) under cfg, for the calls of a caller with settings of its own
// (a batch's task with its own breaker: key, a pipeline's role): its
// zero Failures and Cool are the defaults, its zero Clock b's. A nil b
// gives nil.
func (b *Breaker) With(cfg Config) *Breaker {
	if b == nil {
		return nil
	}
	if cfg.Clock == nil {
		cfg.Clock = b.cfg.Clock
	}
	return &Breaker{cfg: cfg.withDefaults(), core: b.core}
}

// Host is the endpoint's host, as the events name it.
func (b *Breaker) Host() string { return b.host }

// Config returns the breaker's configuration, its defaults filled in.
func (b *Breaker) Config() Config { return b.cfg }

// state is the breaker's state, shared or not.
type state struct {
	// Mode is Closed ("" too), Open or HalfOpen.
	Mode string `json:"state,omitempty"`
	// Failures counts the outage failures in a row, and on through the
	// spells of an outage.
	Failures int `json:"failures,omitempty"`
	// Since is when the current outage began (Unix nanoseconds).
	Since int64 `json:"since,omitempty"`
	// Until is when an open breaker lets one probe through.
	Until int64 `json:"until,omitempty"`
	// Probe names the call that probes a half-open breaker (pid/token/n),
	// ProbePID its process, ProbeAt when it began.
	Probe    string `json:"probe,omitempty"`
	ProbePID int    `json:"probe_pid,omitempty"`
	ProbeAt  int64  `json:"probe_at,omitempty"`
	// Spells counts the half-open spells since the file was made.
	Spells int64 `json:"spells,omitempty"`
	// Opened and ClosedAt are the last outage's ends, kept once it is
	// closed, for the status and the night's morning line.
	Opened   int64 `json:"opened,omitempty"`
	ClosedAt int64 `json:"closed_at,omitempty"`
}

// Status is what a breaker's state says at one moment.
type Status struct {
	// State is Closed, Open or HalfOpen.
	State string
	// Failures is the outage failures in a row.
	Failures int
	// Since is when the outage began (zero when closed); Until when an
	// open breaker lets a probe through.
	Since, Until time.Time
	// Opened and Closed are the span of the last outage that ended (zero
	// before one has).
	Opened, Closed time.Time
}

// Status reads the breaker's state.
func (b *Breaker) Status() Status {
	var st Status
	b.with(func(s *state, _ time.Time) bool {
		st = Status{State: cmp.Or(s.Mode, Closed), Failures: s.Failures, Since: fromNano(s.Since), Until: fromNano(s.Until),
			Opened: fromNano(s.Opened), Closed: fromNano(s.ClosedAt)}
		return false
	})
	return st
}

// with runs f on the state under the breaker's locks (the process's and
// the file's), saving it when f says it changed it.
func (b *Breaker) with(f func(s *state, now time.Time) bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.cfg.Clock.Now()
	if b.file == nil {
		f(&b.local, now)
		return
	}
	if !b.file.Lock() {
		// Sharing failed (Err says why): this process goes on alone from
		// what it knew last.
		f(&b.local, now)
		return
	}
	defer b.file.Unlock()
	load(b.file, &b.local)
	if f(&b.local, now) {
		save(b.file, &b.local)
	}
}

// Ticket is one call let through by Admit; Record reports how it went.
type Ticket struct {
	b     *Breaker
	probe string // the probe's name when this call probes
}

// Probe reports whether the call probes a half-open breaker.
func (t Ticket) Probe() bool { return t.probe != "" }

// Admit waits until a call may go out: at once while the breaker is
// closed; while it is open, until its cool-off ends, when exactly one
// caller of all that share it is let through as the probe (a probe
// event) and the others wait on until the probe's answer closes it or
// opens it again. It waits at most limit (negative: no limit) and
// returns how long it waited; a wait that would pass limit is not begun:
// it returns an *UnavailableError (ErrUnavailable) at once. emit, when
// set, receives the probe event.
func (b *Breaker) Admit(ctx context.Context, limit time.Duration, emit func(event.Event)) (Ticket, time.Duration, error) {
	var waited time.Duration
	for {
		var (
			wait  time.Duration
			t     Ticket
			probe bool
			since time.Time
			until time.Time
			fails int
		)
		b.with(func(s *state, now time.Time) bool {
			switch s.Mode {
			case "", Closed:
				t = Ticket{b: b}
				return false
			case Open:
				if u := fromNano(s.Until); now.Before(u) {
					wait = u.Sub(now)
					since, until, fails = fromNano(s.Since), u, s.Failures
					return false
				}
			case HalfOpen:
				if !b.probeLost(s, now) {
					wait = b.cfg.Poll
					since, fails = fromNano(s.Since), s.Failures
					return false
				}
			}
			// The cool-off is over (or the probe was lost): this call
			// probes, and no other until it is answered.
			t = Ticket{b: b, probe: fmt.Sprintf("%s/%d", b.id, b.seq.Add(1))}
			s.Mode, s.Probe, s.ProbePID, s.ProbeAt = HalfOpen, t.probe, os.Getpid(), now.UnixNano()
			s.Spells++
			probe = true
			return true
		})
		if t.b != nil {
			if probe && emit != nil {
				emit(event.NewBreaker(event.BreakerInfo{State: "probe", Endpoint: b.host}))
			}
			return t, waited, nil
		}
		if limit >= 0 && waited+wait > limit {
			return Ticket{}, waited, &UnavailableError{Endpoint: b.host, Since: since, Until: until, Failures: fails, Cool: b.cfg.Cool, Waited: waited}
		}
		if err := b.cfg.Clock.Sleep(ctx, wait); err != nil {
			return Ticket{}, waited, fmt.Errorf("breaker: stopped waiting for %s: %w", b.host, err)
		}
		waited += wait
	}
}

// probeLost reports whether the probe of a half-open breaker will never
// be answered: its process is gone, or it has gone unanswered too long.
func (b *Breaker) probeLost(s *state, now time.Time) bool {
	if s.ProbePID != os.Getpid() && s.ProbePID > 0 && !flock.Alive(s.ProbePID) {
		return true
	}
	return now.Sub(fromNano(s.ProbeAt)) > probeLease
}

// Counts reports whether err is an outage failure, one that counts
// towards opening a breaker: a failed or dropped connection, a 5xx, a 529
// (classes Connection, Transient and Overloaded).
func Counts(err error) bool {
	switch llm.ClassOf(err) {
	case llm.Connection, llm.Transient, llm.Overloaded:
		return true
	}
	return false
}

// answered reports whether err came from a server that answered (any
// failure with an HTTP status that is not an outage's): the endpoint is
// up.
func answered(err error) bool {
	var e *llm.Error
	return errors.As(err, &e) && e.Status != 0 && !Counts(err)
}

// Record reports how the call of t went, and whether the breaker is open
// or half-open after it (the caller then waits on it, in Admit, rather
// than spend a retry). An outage failure (Counts) counts towards opening it, and
// opens it at the threshold (an open event); the probe's outage failure
// opens it again for another cool-off (an open event). A success, or an
// answer of a server that is up (a 429, a 400), ends the count; the
// probe's closes the breaker for every caller (a closed event, with how
// long it was open), while that of a call that went out before the
// breaker opened changes nothing. Any other failure of the probe (its
// context ended) lets the next caller probe at once. emit, when set,
// receives the events.
func (t Ticket) Record(err error, emit func(event.Event)) (open bool) {
	b := t.b
	if b == nil {
		return false
	}
	var ev *event.Event
	apply := func(s *state, now time.Time) bool {
		switch {
		case err == nil || answered(err):
			if s.Mode == "" || s.Mode == Closed {
				changed := s.Failures != 0
				s.Failures = 0
				return changed
			}
			if s.Mode != HalfOpen || s.Probe != t.probe {
				// A call that went out before the breaker opened says
				// only that the endpoint was up then: the probe decides.
				return false
			}
			e := event.NewBreaker(event.BreakerInfo{State: Closed, Endpoint: b.host, OpenFor: now.Sub(fromNano(s.Since))})
			ev = &e
			*s = state{Mode: Closed, Spells: s.Spells, Opened: s.Since, ClosedAt: now.UnixNano()}
			return true
		case Counts(err):
			switch s.Mode {
			case "", Closed:
				s.Failures++
				if s.Failures < b.cfg.Failures {
					return true
				}
				s.Since = now.UnixNano()
			case HalfOpen:
				s.Failures++
				if s.Probe != t.probe {
					return true // a call from before the probe
				}
			case Open:
				s.Failures++
				return true
			}
			s.Mode, s.Until, s.Probe, s.ProbePID, s.ProbeAt = Open, now.Add(b.cfg.Cool).UnixNano(), "", 0, 0
			e := event.NewBreaker(event.BreakerInfo{State: Open, Endpoint: b.host, Failures: s.Failures, Cool: b.cfg.Cool})
			ev = &e
			return true
		default:
			if s.Mode == HalfOpen && s.Probe == t.probe {
				// The probe never learnt anything (its context ended):
				// the next caller probes at once.
				s.Mode, s.Until, s.Probe, s.ProbePID, s.ProbeAt = Open, now.UnixNano(), "", 0, 0
				return true
			}
			return false
		}
	}
	b.with(func(s *state, now time.Time) bool {
		changed := apply(s, now)
		open = s.Mode == Open || s.Mode == HalfOpen
		return changed
	})
	if ev != nil && emit != nil {
		emit(*ev)
	}
	return open
}

func fromNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
