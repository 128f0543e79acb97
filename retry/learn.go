package retry

import (
	"errors"
	"net/http"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
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
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	l.learnHeaders(h, now)
	switch {
	case err == nil:
		l.speedUp(now)
	case e == nil:
	case e.Class == llm.RateLimited:
		ra := e.RetryAfter
		if ra == 0 {
			ra = llm.RetryAfter(h, now)
		}
		l.hold(now.Add(ra))
		l.slowDown(now, ra)
	case e.Class == llm.Overloaded:
		// An overload is the server's, not this credential's: it does not
		// change the pace, but its Retry-After holds every caller back.
		l.hold(now.Add(e.RetryAfter))
	}
}

// hold blocks every call until t. The turns already handed out were
// booked before the server refused: their holders take a new turn after
// t (see Wait) instead of calling into the refusal one after another.
func (l *Limiter) hold(t time.Time) {
	if !t.After(l.blocked) {
		return
	}
	l.blocked = t
	l.gen++
	l.nextReq, l.nextTok = t, t
}

// learnHeaders sets the header paces from the strictest window h names.
func (l *Limiter) learnHeaders(h http.Header, now time.Time) {
	if h == nil {
		return
	}
	if ws := readWindows(h, requestHeaders, now); len(ws) > 0 {
		l.reqPace = l.headerPace(ws, now, 1)
	}
	if ws := readWindows(h, tokenHeaders, now); len(ws) > 0 {
		l.tokPace = l.headerPace(ws, now, max(l.lastEst, 1))
	}
}

// headerPace spreads each window's remaining units evenly until its reset
// and returns the strictest. A window with nothing left blocks calls for
// the time one call's units (need) take to come back: the provider's
// limits refill continuously, so waiting for the full reset would waste
// most of it; a fixed-window server says so with a 429 and Retry-After.
func (l *Limiter) headerPace(ws []window, now time.Time, need int) pace {
	var p pace
	for _, w := range ws {
		left := w.reset.Sub(now)
		if left <= 0 {
			continue
		}
		var every time.Duration
		switch {
		case w.remaining >= 1 && w.limit >= 1:
			// The limit refills continuously (Anthropic's token bucket,
			// OpenAI's and a sliding window alike): until the window is
			// whole again, the units left now and the limit-remaining
			// that come back add up to the limit. Spreading only the
			// units left would settle at half the limit.
			every = time.Duration(float64(left) / w.limit)
		case w.remaining >= 1:
			every = time.Duration(float64(left) / w.remaining)
		case w.limit >= 1:
			every = time.Duration(float64(left) / w.limit)
			l.blocked = latest(l.blocked, now.Add(every*time.Duration(need)))
		default:
			l.blocked = latest(l.blocked, w.reset)
		}
		if every > p.every {
			p = pace{every: every, until: w.reset}
		}
	}
	return p
}

// slowDown learns a rate from a 429: the first time, what the server
// accepted until it refused; after that, the multiplicative decrease of
// the learned rate to 3/4 (or to what the server accepted, if lower). The
// 429s of one episode (those before calm) slow it down once.
func (l *Limiter) slowDown(now time.Time, retryAfter time.Duration) {
	if now.Before(l.calm) {
		return
	}
	l.trim(now)
	if len(l.ok) < minEvidence {
		// Too few calls to say what the server accepts: a 429 on the
		// first calls says nothing of the rate (a burst, another
		// process). Its Retry-After already holds every caller back;
		// learning a rate from no evidence would crawl at one call a
		// minute (regression: the demo's opening 429 slowed the rest of
		// the run to a minute per call).
		return
	}
	// What the server accepts: the successes of the last minute over the
	// time from the oldest of them until the server takes a call again.
	// A window or bucket that refuses now has held about that many over
	// that time, even when the run is younger than a minute (a minute's
	// count alone would read a limit of 600 a minute, met in six seconds,
	// as 45 a minute).
	span := max(now.Sub(l.ok[0])+retryAfter, time.Second)
	rate := float64(len(l.ok)) * float64(minute) / float64(span)
	if l.learned > 0 {
		// Paced at the learned rate and still refused: it was too fast.
		rate = min(rate, l.learned*slowDownFactor)
	} else {
		l.lesson = lesson{from: l.ok[0], span: span, until: now.Add(retryAfter)}
	}
	l.learned = max(minLearnedRPM, rate)
	l.calm = now.Add(max(retryAfter, time.Duration(float64(minute)/l.learned)))
}

// speedUp records a success and, once the last slow-down has calmed,
// raises the learned rate by a little: each success adds its share of one
// request a minute (or of 5% when that is more), so that at the paced rate
// the limit grows by that much per minute, not per call.
func (l *Limiter) speedUp(now time.Time) {
	if len(l.ok) >= maxSuccesses {
		l.ok = append(l.ok[:0], l.ok[len(l.ok)/2:]...)
	}
	l.ok = append(l.ok, now)
	if now.Before(l.lesson.until) {
		// A success while the first 429's Retry-After holds every call
		// back was a call the server accepted before it refused, its
		// answer still on the way: it counts in the rate learned.
		n := 0
		for _, t := range l.ok {
			if !t.Before(l.lesson.from) {
				n++
			}
		}
		l.learned = max(l.learned, float64(n)*float64(minute)/float64(l.lesson.span))
	}
	if l.learned == 0 || now.Before(l.calm) {
		return
	}
	l.learned += max(1, l.learned/20) / l.learned
	if l.learned > maxLearnedRPM {
		l.learned = 0
	}
}

// trim drops successes older than a minute.
func (l *Limiter) trim(now time.Time) {
	cut := now.Add(-minute)
	i := 0
	for i < len(l.ok) && !l.ok[i].After(cut) {
		i++
	}
	l.ok = append(l.ok[:0], l.ok[i:]...)
}
