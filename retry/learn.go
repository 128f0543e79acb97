package retry

import (
	"errors"
	"net/http"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
)

// Learned rates stay within these bounds: a limiter never paces slower
// than one request a minute on its own, and forgets a learned rate that
// has grown past any real provider's limit.
const (
	minLearnedRPM = 1
	maxLearnedRPM = 100_000
	// minEvidence is how many successes in the last minute a 429 needs
	// before the limiter learns a rate from it.
	minEvidence = 3
	// slowDownFactor is the multiplicative decrease on a 429 (cut).
	slowDownFactor = 0.75
	// headerMargin is how much slower than the headers' pace calls are
	// spaced. A provider counts a call when it arrives, the limiter when
	// its turn starts; the time between varies by a few milliseconds, so
	// calls spaced exactly at the limit are refused whenever one lands a
	// little earlier than the call a window before it did.
	headerMargin = 0.03
)

// Observe reports how a call went: h is the response's headers (nil when
// there were none) and err the call's error (nil on success). A failed
// call's headers are read from its *llm.Error when h is nil.
func (l *Limiter) Observe(h http.Header, err error) {
	var e *llm.Error
	errors.As(err, &e)
	if h == nil && e != nil {
		h = e.Header
	}
	l.with(true, func(st *state, now time.Time) {
		st.release(l.pid)
		st.learnHeaders(h, now)
		switch {
		case err == nil:
			st.success(now)
			st.speedUp(now)
		case e == nil:
		case e.Class == llm.RateLimited:
			st.limited++
			ra := e.RetryAfter
			if ra == 0 {
				ra = llm.RetryAfter(h, now)
			}
			if ra == 0 {
				ra = resetWait(h, now)
			}
			st.hold(now.Add(ra))
			if st.headersAt.IsZero() || now.Sub(st.headersAt) >= minute {
				st.slowDown(now, ra)
			}
		case e.Class == llm.Overloaded:
			// An overload is the server's, not this credential's: it does
			// not change the pace, but its Retry-After holds every caller
			// back.
			st.hold(now.Add(e.RetryAfter))
		}
	})
	l.signal()
}

// hold blocks every call until t. The turns already handed out were
// booked before the server refused: their holders take a new turn from
// t on (see Wait) instead of calling into the refusal one after another.
func (st *state) hold(t time.Time) {
	if !t.After(st.blocked) {
		return
	}
	st.blocked = t
	st.gen++
	st.nextReq, st.nextTok = t, t
	// The turns booked after now are void, so the next one is not
	// spaced after the last of them: twenty processes' queue of turns
	// reached ten seconds ahead, and every 429 left the limit unused
	// for as long (regression, issue 26: 98 s for 40 s of work).
	st.lastStart = time.Time{}
}

// learnHeaders sets the header paces from the strictest window h names.
func (st *state) learnHeaders(h http.Header, now time.Time) {
	if h == nil {
		return
	}
	if ws := readWindows(h, requestHeaders, now); len(ws) > 0 {
		st.reqPace = st.headerPace(st.reqPace, ws, now, 1)
		st.headersAt = now
	}
	if ws := readWindows(h, tokenHeaders, now); len(ws) > 0 {
		st.tokPace = st.headerPace(st.tokPace, ws, now, max(st.lastEst, 1))
		st.headersAt = now
	}
}

// headerPace spreads each window's limit evenly until its reset and
// returns the strictest spacing, headerMargin slower. A window with
// nothing left blocks calls for the time one call's units (need) take to
// come back: the provider's limits refill continuously, so waiting for
// the full reset would waste most of it; a fixed-window server says so
// with a 429 and Retry-After.
//
// The limit over the time left until the reset is the spacing at the
// limit only when the headers are read as the window's last call is
// counted; read later (the headers of a 429, an answer that took long),
// the time left is shorter and so is the spacing it gives, never longer.
// So while the last pace holds for the same limit, the longer of the two
// is kept (regression: twenty processes spaced their turns a quarter of
// a second apart under a limit of two a second after reading a 429's
// headers half a window late; 20 of 100 calls were refused).
func (st *state) headerPace(prev pace, ws []window, now time.Time, need int) pace {
	var p pace
	for _, w := range ws {
		left := w.reset.Sub(now)
		if left <= 0 {
			continue
		}
		left = time.Duration(float64(left) * (1 + headerMargin))
		var every time.Duration
		switch {
		case w.limit >= 1:
			// The limit refills continuously (Anthropic's token bucket,
			// OpenAI's and a sliding window alike): until the window is
			// whole again, the units left now and the limit-remaining
			// that come back add up to the limit. Spreading only the
			// units left would settle at half the limit.
			every = time.Duration(float64(left) / w.limit)
		case w.remaining >= 1:
			every = time.Duration(float64(left) / w.remaining)
		default:
			st.blocked = latest(st.blocked, w.reset)
		}
		if every > p.every {
			p = pace{every: every, until: w.reset, limit: w.limit}
		}
	}
	if p.limit >= 1 && p.limit == prev.limit && now.Before(prev.until) && prev.every > p.every {
		p.every = prev.every
	}
	for _, w := range ws {
		if w.remaining < 1 && w.limit >= 1 && w.reset.After(now) {
			st.blocked = latest(st.blocked, now.Add(p.every*time.Duration(need)))
		}
	}
	return p
}

// slowDown learns a rate from a 429 that came without rate-limit headers:
// the first time, what the server accepted until it refused; after that,
// the multiplicative decrease of the learned rate to 3/4, or to the last
// rate that held a whole window without a 429 when that is lower (see
// probeUp). The 429s of one episode (those before calm) slow it down
// once. Every bare 429's Retry-After teaches the window (learnWindow).
func (st *state) slowDown(now time.Time, retryAfter time.Duration) {
	st.learnWindow(retryAfter)
	if now.Before(st.calm) {
		return
	}
	st.trim(now.Add(-minute))
	if st.successes(time.Time{}) < minEvidence {
		// Too few calls to say what the server accepts: a 429 on the
		// first calls says nothing of the rate (a burst, another
		// process). Its Retry-After already holds every caller back;
		// learning a rate from no evidence would crawl at one call a
		// minute (regression: the demo's opening 429 slowed the rest of
		// the run to a minute per call).
		return
	}
	if st.learned > 0 {
		// Paced at the learned rate and still refused: it was too fast.
		st.cut(now.Add(retryAfter))
	} else {
		// What the server accepts: the successes of the last minute
		// over the time from the oldest of them until the server takes
		// a call again. A window or bucket that refuses now has held
		// about that many over that time, even when the run is younger
		// than a minute (a minute's count alone would read a limit of
		// 600 a minute, met in six seconds, as 45 a minute). The calls
		// went out unpaced, so this is a first guess, not a ceiling:
		// probeUp raises it until the server refuses a paced rate.
		from := st.ok[0].at
		span := max(now.Sub(from)+retryAfter, time.Second)
		st.learned = float64(st.successes(from)) * float64(minute) / float64(span)
		st.lesson = lesson{from: from, span: span, until: now.Add(retryAfter)}
	}
	st.learned = max(minLearnedRPM, st.learned)
	st.calm = now.Add(max(retryAfter, time.Duration(float64(minute)/st.learned)))
	// The new pace starts when the hold ends, and is judged by the
	// window that follows.
	st.repace(now.Add(retryAfter))
}

// speedUp follows a success (already recorded). While the first 429's
// hold lasts, it adds late answers to the first lesson; after the calm,
// it probes upward once per learned window (probeUp).
func (st *state) speedUp(now time.Time) {
	if now.Before(st.lesson.until) {
		// A success while the first 429's Retry-After holds every call
		// back was a call the server accepted before it refused, its
		// answer still on the way: it counts in the rate learned.
		n := st.successes(st.lesson.from)
		st.learned = max(st.learned, float64(n)*float64(minute)/float64(st.lesson.span))
	}
	if st.learned == 0 || now.Before(st.calm) {
		return
	}
	st.probeUp(now)
	if st.learned > maxLearnedRPM {
		st.forgetLearned()
	}
}
