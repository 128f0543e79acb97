package retry

import (
	"context"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
)

// LimiterConfig configures a Limiter. Zero fields take their defaults.
type LimiterConfig struct {
	// RPM, when positive, caps requests per minute by hand (--rpm): calls
	// are spaced at least a minute/RPM apart. Default none: the pace is
	// learned from headers and 429s alone.
	RPM int
	// TPM, when positive, caps estimated tokens per minute by hand
	// (--tpm). Default none.
	TPM int
	// Clock tells the time and waits. Default clock.Real{}.
	Clock clock.Clock
}

// minute is the period of RPM and TPM.
const minute = time.Minute

// Learned rates stay within these bounds: a limiter never paces slower
// than one request a minute on its own, and forgets a learned rate that
// has grown past any real provider's limit.
const (
	minLearnedRPM = 1
	maxLearnedRPM = 100_000
	// minEvidence is how many successes in the last minute a 429 needs
	// before the limiter learns a rate from it.
	minEvidence = 3
	// slowDownFactor is the multiplicative decrease on a 429.
	slowDownFactor = 0.75
	// maxSuccesses bounds the memory of recent successes.
	maxSuccesses = 4096
)

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
//   - a rate learned from 429s: the first 429 teaches what the server
//     accepted until it refused (the successes of the last minute over the
//     time from the first of them to the end of the Retry-After), a later
//     one slows that to 3/4; a Retry-After blocks every caller, including
//     those already waiting for a turn, which take a new one after it; and
//     successes speed the rate up again by one request a minute per
//     minute, or 5% a minute when that is more (additive increase,
//     multiplicative decrease).
//
// A Limiter is safe for concurrent use; get one per credential from a
// Limiters registry.
type Limiter struct {
	clock clock.Clock

	mu      sync.Mutex
	rpm     float64   // hand-set ceiling, 0 = none
	tpm     float64   // hand-set ceiling, 0 = none
	nextReq time.Time // earliest start of the next call by request pace
	nextTok time.Time // earliest start of the next call by token pace
	blocked time.Time // no call starts before this
	gen     uint64    // counts the holds (hold), which void booked turns
	reqPace pace      // request spacing from the last headers
	tokPace pace      // per-token spacing from the last headers
	learned float64   // requests per minute learned from 429s, 0 = none
	calm    time.Time // 429s before this belong to the last slow-down
	lesson  lesson    // the first 429's evidence, while its hold lasts
	ok      []time.Time
	lastEst int
}

// lesson is what the first 429 learned its rate from: the successes since
// from over span. Until its hold ends, late answers to calls the server
// accepted before it refused are added to it.
type lesson struct {
	from  time.Time
	span  time.Duration
	until time.Time
}

// pace is a spacing that holds until a time (a header's reset).
type pace struct {
	every time.Duration
	until time.Time
}

func (p pace) at(now time.Time) time.Duration {
	if now.Before(p.until) {
		return p.every
	}
	return 0
}

// NewLimiter returns a limiter for one credential. Most callers get theirs
// from a Limiters registry instead, so that every run shares it.
func NewLimiter(cfg LimiterConfig) *Limiter {
	l := &Limiter{clock: cfg.Clock}
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

// Wait waits for this call's turn: a call estimated at estTokens tokens
// (input plus max output; zero when unknown). It returns ctx.Err() when
// ctx ends first. Turns are handed out in order, so N callers waiting at
// once start one pace apart, not all together.
func (l *Limiter) Wait(ctx context.Context, estTokens int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for {
		d, gen := l.reserve(max(estTokens, 0))
		if d > 0 {
			if err := l.clock.Sleep(ctx, d); err != nil {
				return err
			}
		}
		if l.current(gen) {
			return nil
		}
		// A 429 came back while this caller waited: its turn was booked
		// before the server refused, so it takes a new one.
	}
}

// current reports whether no refusal has held the calls back since gen.
func (l *Limiter) current(gen uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen == gen
}

// reserve books the next turn and returns how long until it starts and
// the hold generation it was booked in.
func (l *Limiter) reserve(est int) (time.Duration, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	start := latest(now, l.blocked, l.nextReq, l.nextTok)
	l.nextReq = start.Add(l.requestInterval(now))
	l.nextTok = start.Add(time.Duration(est) * l.tokenInterval(now))
	if est > 0 {
		l.lastEst = est
	}
	return start.Sub(now), l.gen
}

func (l *Limiter) requestInterval(now time.Time) time.Duration {
	d := l.reqPace.at(now)
	if l.rpm > 0 {
		d = max(d, time.Duration(float64(minute)/l.rpm))
	}
	if l.learned > 0 {
		d = max(d, time.Duration(float64(minute)/l.learned))
	}
	return d
}

func (l *Limiter) tokenInterval(now time.Time) time.Duration {
	d := l.tokPace.at(now)
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
}

// State returns the limiter's current pace.
func (l *Limiter) State() LimiterState {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	return LimiterState{
		Interval:     l.requestInterval(now),
		PerToken:     l.tokenInterval(now),
		LearnedRPM:   l.learned,
		BlockedUntil: l.blocked,
	}
}

func latest(t time.Time, ts ...time.Time) time.Time {
	for _, u := range ts {
		if u.After(t) {
			t = u
		}
	}
	return t
}
