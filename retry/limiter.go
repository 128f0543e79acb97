package retry

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/flock"
)

// LimiterConfig configures a Limiter. Zero fields take their defaults.
type LimiterConfig struct {
	// RPM, when positive, caps requests per minute by hand (--rpm): calls
	// are spaced at least a minute/RPM apart. It belongs to this process
	// and is never written to a shared file, but it spaces the turns of
	// the shared schedule all the same. Default none: the pace is learned
	// from headers and 429s alone.
	RPM int
	// TPM, when positive, caps estimated tokens per minute by hand
	// (--tpm). Default none.
	TPM int
	// Clock tells the time and waits. Default clock.Real{}.
	Clock clock.Clock
	// Dir, when set, is the folder in which limiters share what they
	// learn with the other processes of the machine: one small file per
	// endpoint and credential, named by a hash of both (see
	// OpenLimiter). The CLI uses statedir.Limits. NewLimiter ignores it.
	// Default none: each process paces alone.
	Dir string
	// Share, when set, says which endpoints' limiters a Limiters registry
	// shares through Dir (true) and which it keeps in this process
	// (false): a model that answers inside the process has no limit to
	// share. Default: every endpoint's.
	Share func(endpoint string) bool
}

// minute is the period of RPM and TPM.
const minute = time.Minute

// Limiter paces the calls made under one provider credential, so that
// many runs share its rate limit instead of colliding on it. Each call
// first waits for its turn (Wait) and then reports what the provider said
// (Observe). The pace is the strictest of:
//
//   - the hand-set RPM and TPM;
//   - the rate-limit headers of the last response (Anthropic's
//     anthropic-ratelimit-*, OpenAI's x-ratelimit-*): the limit is spread
//     evenly until the window is whole again (it refills meanwhile), or
//     the remaining units when no limit is sent; none remaining blocks
//     calls until one is back;
//   - a rate learned from 429s that came without rate-limit headers: the
//     first 429 teaches what the server accepted until it refused (the
//     successes of the last minute over the time from the first of them
//     to the end of the Retry-After), a later one slows that to 3/4; and
//     successes speed the rate up again by one request a minute per
//     minute, or 5% a minute when that is more (additive increase,
//     multiplicative decrease).
//
// A Retry-After (of a 429 or an overload) blocks every caller, including
// those already waiting for a turn, which take a new one after it. Until
// the limiter knows anything of the limit (no headers, no 429, no hand
// rate), it keeps few calls in flight: one at first, twice as many every
// second after that, so that a server that answers only with bare 429s is
// met by a call or two, not a stampede, while slow calls to a server with
// no limit reach full parallelism within seconds.
//
// A limiter opened with OpenLimiter keeps all of this (the limit, the
// window, the calls in flight, the next free turn) in a file that the
// other processes of the machine using the same endpoint and credential
// share, so that twenty separate processes pace like one batch.
//
// A Limiter is safe for concurrent use; get one per credential from a
// Limiters registry.
type Limiter struct {
	clock clock.Clock
	pid   int

	mu   sync.Mutex
	file *flock.Shared // nil: the state lives in this process alone
	rpm  float64       // hand-set ceiling, 0 = none
	tpm  float64       // hand-set ceiling, 0 = none
	st   state
	// wake is closed, and replaced, whenever this process ends a call,
	// so that its callers waiting for room in flight try again at once
	// instead of at their next poll.
	wake chan struct{}
}

// NewLimiter returns a limiter for one credential, kept in this process
// alone. Most callers get theirs from a Limiters registry instead, so that
// every run shares it.
func NewLimiter(cfg LimiterConfig) *Limiter {
	l := &Limiter{clock: cfg.Clock, pid: os.Getpid(), wake: make(chan struct{})}
	if l.clock == nil {
		l.clock = clock.Real{}
	}
	l.SetRate(cfg.RPM, cfg.TPM)
	return l
}

// SetRate sets the hand-set ceilings (--rpm, --tpm); zero or negative
// removes one.
func (l *Limiter) SetRate(rpm, tpm int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rpm, l.tpm = float64(max(rpm, 0)), float64(max(tpm, 0))
}

// with runs fn on the limiter's state at the current time. With a shared
// file, the state is the file's: it is read under the file's lock before
// fn and, when write is set, written back before the lock is released, so
// that the processes sharing it take turns on one state. The time is read
// under the lock, so that the processes' changes follow each other in
// time as they do in the file.
func (l *Limiter) with(write bool, fn func(st *state, now time.Time)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// Without the lock (it failed: Err says why), the state is this
	// process's alone for this turn, and is not written over the file
	// another process may be writing.
	locked := l.file != nil && l.file.Lock()
	if locked {
		defer l.file.Unlock()
		load(l.file, &l.st)
	}
	now := l.clock.Now()
	l.st.refresh(now)
	fn(&l.st, now)
	if write {
		l.st.updated = now
		if locked {
			save(l.file, &l.st)
		}
	}
}

// Wait waits for this call's turn: a call estimated at estTokens tokens
// (input plus max output; zero when unknown). It returns ctx.Err() when
// ctx ends first. Turns are handed out in order, so N callers waiting at
// once start one pace apart, not all together. Every Wait that returns nil
// must be followed by one Observe of how the call went: until then the
// call counts as in flight.
func (l *Limiter) Wait(ctx context.Context, estTokens int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for {
		t := l.reserve(max(estTokens, 0))
		if !t.granted {
			// No room in flight while the limit is unknown: try again
			// when a call of this process ends, or at the next poll for
			// the other processes' calls.
			if err := l.pause(ctx, t.wait, t.wake); err != nil {
				return err
			}
			continue
		}
		if t.wait <= 0 {
			return nil
		}
		if err := l.clock.Sleep(ctx, t.wait); err != nil {
			l.end()
			return err
		}
		if l.current(t.gen) {
			return nil
		}
		// A 429 came back while this caller waited: its turn was booked
		// before the server refused, so it takes a new one.
		l.end()
	}
}

// turn is what reserve handed out.
type turn struct {
	granted bool
	wait    time.Duration // until the turn starts, or until the next try
	gen     uint64        // the hold generation the turn was booked in
	wake    <-chan struct{}
}

// reserve books the next turn, or, while the limit is unknown and the
// calls in flight fill the probe's room, says how long to wait before
// trying again.
func (l *Limiter) reserve(est int) turn {
	var t turn
	l.with(true, func(st *state, now time.Time) {
		if !l.knows(st) {
			if st.probeFrom.IsZero() {
				st.probeFrom = now
			}
			room, grows := probeRoom(now.Sub(st.probeFrom))
			if st.inFlight(l.pid) >= room {
				t = turn{wait: min(probePoll, grows), wake: l.wake}
				return
			}
		}
		every := l.requestInterval(st, now)
		start := latest(now, st.blocked, st.nextReq, st.nextTok)
		if !st.lastStart.IsZero() {
			tokens := time.Duration(st.lastEst) * l.tokenInterval(st, now)
			start = latest(start, st.lastStart.Add(every), st.lastStart.Add(tokens))
		}
		st.lastStart = start
		st.nextReq = start.Add(every)
		st.nextTok = start.Add(time.Duration(est) * l.tokenInterval(st, now))
		if est > 0 {
			st.lastEst = est
		}
		st.take(l.pid, now)
		t = turn{granted: true, wait: start.Sub(now), gen: st.gen}
	})
	return t
}

// end gives back a turn that was not used for a call.
func (l *Limiter) end() {
	l.with(true, func(st *state, _ time.Time) { st.release(l.pid) })
	l.signal()
}

// signal wakes this process's callers waiting for room in flight.
func (l *Limiter) signal() {
	l.mu.Lock()
	defer l.mu.Unlock()
	close(l.wake)
	l.wake = make(chan struct{})
}

// pause waits d, or until wake is closed, or until ctx ends (its error).
func (l *Limiter) pause(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-wake:
			stop()
		case <-sctx.Done():
		}
	}()
	l.clock.Sleep(sctx, d) //nolint:errcheck // a wake ends it early; ctx is checked below
	return ctx.Err()
}

// current reports whether no refusal has held the calls back since gen.
func (l *Limiter) current(gen uint64) bool {
	var ok bool
	l.with(false, func(st *state, _ time.Time) { ok = st.gen == gen })
	return ok
}

// knows reports whether the limiter has anything to pace by: a hand-set
// rate, rate-limit headers, or a rate learned from 429s.
func (l *Limiter) knows(st *state) bool {
	return l.rpm > 0 || l.tpm > 0 || !st.headersAt.IsZero() || st.learned > 0
}

func (l *Limiter) requestInterval(st *state, now time.Time) time.Duration {
	d := st.reqPace.at(now)
	if l.rpm > 0 {
		d = max(d, time.Duration(float64(minute)/l.rpm))
	}
	if st.learned > 0 {
		d = max(d, time.Duration(float64(minute)/st.learned))
	}
	return d
}

func (l *Limiter) tokenInterval(st *state, now time.Time) time.Duration {
	d := st.tokPace.at(now)
	if l.tpm > 0 {
		d = max(d, time.Duration(float64(minute)/l.tpm))
	}
	return d
}

// LimiterState is a snapshot of a limiter's pace, for reports and tests.
type LimiterState struct {
	// Interval is the current spacing between call starts (0 = none).
	Interval time.Duration
	// PerToken is the current spacing per estimated token (0 = none).
	PerToken time.Duration
	// LearnedRPM is the rate learned from 429s (0 = none learned).
	LearnedRPM float64
	// BlockedUntil is when calls may start again after a 429 or an
	// exhausted window (zero or past = not blocked).
	BlockedUntil time.Time
	// InFlight is how many calls have their turn and have not reported
	// back yet, in every process sharing the limiter.
	InFlight int
}

// State returns the limiter's current pace.
func (l *Limiter) State() LimiterState {
	var s LimiterState
	l.with(false, func(st *state, now time.Time) {
		s = LimiterState{
			Interval:     l.requestInterval(st, now),
			PerToken:     l.tokenInterval(st, now),
			LearnedRPM:   st.learned,
			BlockedUntil: st.blocked,
			InFlight:     st.inFlight(l.pid),
		}
	})
	return s
}

func latest(t time.Time, ts ...time.Time) time.Time {
	for _, u := range ts {
		if u.After(t) {
			t = u
		}
	}
	return t
}
