package retry

import "time"

// How a rate learned from bare 429s moves (issue 26). TCP's congestion
// control is the model: a refusal cuts the rate (cut), and a whole
// learned window without one (TCP's round trip) raises it (probeUp). Raising
// by a fixed step per window, as TCP does above its threshold, cannot
// reach 80 % of a limit of 60 a minute within ten windows from a first
// guess of 40 % of it, so the rise is in two regimes:
//
//   - with no refused pace to aim at, it probes: an eighth more, then a
//     quarter, a half, and double, one step per window, until the
//     server refuses (TCP's slow start);
//   - once a paced rate was refused, the limit lies between the last
//     rate that held a window (good) and the one refused (ceiling): each
//     window halves the distance (BIC's binary search), until the two are
//     within ceilingGap. Then it probes again, in case the ceiling was a
//     storm's; but once a probe above the ceiling was refused, it first
//     rests under the ceiling, at a rate that held, for a plateau of
//     windows that doubles after each probe the server refuses.
const (
	// cutFactor is the multiplicative decrease on a 429.
	cutFactor = slowDownFactor
	// edgeFactor is the decrease when the rate refused is one that held
	// a whole window: the limit is just under it.
	edgeFactor = 0.9
	// ceilingGap is how close under a refused rate the binary search
	// stops: 12 %, just more than the gap the probe's first step (an
	// eighth) opens, so that a refused first step rests at once at the
	// rate that held; every halving above the limit costs a 429.
	ceilingGap = 0.12
	// plateauWindows is how many windows the rate rests under the
	// ceiling after a probe above it was refused; it doubles after each
	// further refused probe, up to maxPlateauDoublings times.
	plateauWindows      = 8
	maxPlateauDoublings = 4
	// stormFall is how far under the last ceiling a refused rate must
	// be for the refusals to be a storm or a fallen limit (see cut).
	stormFall = 0.8
	// maxProbeStep bounds the probe's growth at doubling per window.
	maxProbeStep = 3
	// minUse is the share of the paced calls a window must have made to
	// say anything of the pace: a window in which the runs were busy
	// elsewhere (tools, a judge), or took turns booked before the pace
	// was raised, proved nothing, and raising the rate on it would run
	// away from the limit and meet it later with a burst (TCP's
	// congestion window validation, RFC 7661). Regression: twenty
	// processes with a queue of turns booked seconds ahead at the old
	// spacing raised a limit of 120 a minute to 420 before a 429 said so.
	minUse = 0.8
)

// learnWindow keeps the longest Retry-After of the bare 429s as the
// limit's window: a server that refuses a burst says when its oldest
// call leaves the window, which is about the whole window, while a
// refusal of paced calls says less. It stays within a second and a
// minute.
func (st *state) learnWindow(retryAfter time.Duration) {
	st.window = min(max(st.window, retryAfter, time.Second), minute)
}

// probeWindow is how long a pace must hold before it is judged: the
// learned window, and at least the spacing of calls, so that the window
// holds a call to judge by; at most a minute, the span of the successes
// the state keeps.
func (st *state) probeWindow() time.Duration {
	w := max(st.window, time.Second)
	if st.learned > 0 {
		w = max(w, time.Duration(float64(minute)/st.learned))
	}
	return min(w, minute)
}

// cut is the decrease after a 429 to calls paced at the learned rate.
// When a lower rate held since the last refusal (good), the limit lies
// between the two: the refused rate becomes the ceiling, and the pace
// goes back to the rate that held. When the rate that held is the one
// refused, the pace falls by a tenth; otherwise to 3/4, the
// multiplicative decrease, as often as the server refuses it.
func (st *state) cut(now time.Time) {
	refused := st.learned
	switch {
	case st.good > 0 && st.good < refused:
		if st.step > 0 {
			// A probe above a rate that held was refused: rest longer
			// under the ceiling before the next.
			st.refusedProbes++
		}
		st.ceiling, st.learned = refused, st.good
	case st.good > 0:
		// The rate that held is refused now: calls spaced near the
		// limit collide with its edge, or a window that held them by
		// the luck of their timing fills up. The limit is just under.
		st.good, st.ceiling = 0, refused
		st.learned = refused * edgeFactor
	case st.ceiling > 0 && refused >= stormFall*st.ceiling:
		// Refused again near the last ceiling: under it, by more.
		st.ceiling = refused
		st.learned = refused * cutFactor
	default:
		// Nothing brackets the limit: a first guess refused, or a rate
		// far under the last ceiling (a storm of other calls on the
		// key, or a limit that fell). What probes met above the old
		// ceiling says nothing of the new limit: probe again from the
		// cut, without resting.
		st.good, st.ceiling, st.refusedProbes = 0, 0, 0
		st.learned = refused * cutFactor
	}
	st.step, st.rested = 0, 0
	st.repace(now)
}

// repace starts judging a new pace (probeUp). The turns already booked
// keep the spacing they were booked at, so the new pace starts after the
// last of them: twenty processes keep a queue of turns seconds long, and
// a raise judged by the calls of that queue was judged by the old pace
// (regression: a limit of 120 a minute was raised to 420).
func (st *state) repace(now time.Time) {
	st.pacedFrom, st.paced = latest(now, st.lastStart), 0
}

// probeUp raises the learned rate once its pace has held for a whole
// window without a 429 while the runs used it (see the constants). A
// pace above a sliding window's limit is refused only once the window is
// full of calls at that pace, so it holds when a window has passed and
// more calls than a window's worth at the pace were answered since it
// started.
func (st *state) probeUp(now time.Time) {
	if st.pacedFrom.IsZero() {
		st.repace(now)
		return
	}
	if now.Before(st.pacedFrom) {
		return // a call of the queue booked at the old pace
	}
	st.paced++
	// A window's worth of calls at the pace, and two more: a sliding
	// window refuses a pace above its limit at the first call past a
	// window's worth, unless the calls' timing happened to spare it;
	// a pace slower than a call per window fills no window at all.
	elapsed := now.Sub(st.pacedFrom)
	perWindow := st.learned * float64(st.window) / float64(minute)
	need := 1
	if perWindow >= 1 {
		need = int(perWindow) + 2
	}
	if elapsed < st.probeWindow() || st.paced < need {
		return
	}
	if float64(st.paced) < minUse*st.learned*float64(elapsed)/float64(minute) {
		// The calls went out slower than the pace: the runs were busy
		// elsewhere, or took turns booked at an older, slower pace.
		// Judge the next window.
		st.repace(now)
		return
	}
	st.good = st.learned
	defer st.repace(now)
	switch {
	case st.ceiling > 0 && st.ceiling-st.learned > ceilingGap*st.ceiling:
		st.learned = (st.learned + st.ceiling) / 2
		return
	case st.ceiling > 0:
		st.rested++
		if st.refusedProbes > 0 && st.rested < plateauWindows<<min(st.refusedProbes-1, maxPlateauDoublings) {
			return
		}
		// Rested long enough under the ceiling: probe above it again.
		st.ceiling, st.rested, st.step = 0, 0, 0
	}
	st.learned *= 1 + float64(int(1)<<min(st.step, maxProbeStep))/8
	st.step++
}

// forgetLearned drops what bare 429s taught, keeping the window.
func (st *state) forgetLearned() {
	st.learned, st.good, st.ceiling = 0, 0, 0
	st.step, st.rested, st.refusedProbes, st.paced = 0, 0, 0, 0
	st.pacedFrom = time.Time{}
}
