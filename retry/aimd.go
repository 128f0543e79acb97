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
	// maxProbeStep bounds the probe's growth at doubling per window.
	maxProbeStep = 3
	// minUse is the share of the paced calls a window must have made to
	// say anything of the pace: a window in which the runs were busy
	// elsewhere (tools, a judge) proved nothing, and raising the rate on
	// it would meet the limit later with a burst (TCP's congestion
	// window validation, RFC 7661).
	minUse = 0.5
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
// When a lower rate held a whole window since the last refusal (good),
// the limit lies between the two: the refused rate becomes the ceiling
// and the pace goes back to the rate that held, which the server has
// just shown it takes. Otherwise (no rate held yet, or the one that
// held is refused now: the limit fell, or a storm of other calls on the
// key fills it), nothing brackets the limit and the pace falls to 3/4,
// the multiplicative decrease, as often as the server refuses it.
func (st *state) cut() {
	refused := st.learned
	if st.good > 0 && st.good < refused {
		if st.step > 0 {
			// A probe above a rate that held was refused: rest longer
			// under the ceiling before the next.
			st.refusedProbes++
		}
		st.ceiling, st.learned = refused, st.good
	} else {
		// What held, and what probes above it met, say nothing any
		// more: the rate comes back by probing, without resting.
		st.good, st.ceiling, st.refusedProbes = 0, 0, 0
		st.learned = refused * cutFactor
	}
	st.step, st.rested = 0, 0
}

// probeUp raises the learned rate once its pace has held for a whole
// window without a 429 while the runs used it (see the constants).
func (st *state) probeUp(now time.Time) {
	w := st.probeWindow()
	if st.probeAt.IsZero() {
		st.probeAt = now.Add(w)
		return
	}
	if now.Before(st.probeAt) {
		return
	}
	st.probeAt = now.Add(w)
	need := max(1, int(minUse*st.learned*float64(w)/float64(minute)))
	if st.successes(now.Add(-w)) < need {
		return
	}
	st.good = st.learned
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
	st.step, st.rested, st.refusedProbes = 0, 0, 0
	st.probeAt = time.Time{}
}
