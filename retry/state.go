package retry

import (
	"time"

	"github.com/nightshift-dev/nightshift/internal/flock"
)

// state is what a limiter knows of its credential's limit: in memory, or
// shared with the other processes of the machine through its file
// (share.go), which is why it holds times and counts only, never a key.
type state struct {
	updated time.Time // the last change
	nextReq time.Time // earliest start of the next call by request pace: the next free turn
	// lastStart is the start of the last turn handed out: the next one
	// is at least a spacing later, even when the spacing was learned
	// after that turn was booked.
	lastStart time.Time
	nextTok   time.Time // earliest start of the next call by token pace
	blocked   time.Time // no call starts before this
	gen       uint64    // counts the holds (hold), which void booked turns
	reqPace   pace      // request spacing from the last headers
	tokPace   pace      // per-token spacing from the last headers
	// headersAt is when a response last carried rate-limit headers: the
	// server says what its limit is, so 429s teach no rate of their own.
	headersAt time.Time
	learned   float64   // requests per minute learned from bare 429s, 0 = none
	calm      time.Time // 429s before this belong to the last slow-down
	lesson    lesson    // the first 429's evidence, while its hold lasts
	// window is the limit's window learned from bare 429s' Retry-After
	// (learnWindow): the learned rate is judged, and raised, once per
	// window (aimd.go).
	window time.Duration
	// good is the last learned rate that held a whole window without a
	// 429, ceiling the last one refused (0 = none): the limit lies
	// between them.
	good, ceiling float64
	// pacedFrom is when the current pace started, paced how many calls
	// were answered since.
	pacedFrom time.Time
	paced     int
	// step counts the probe's steps above a rate that held, rested the
	// windows spent under the ceiling, refusedProbes the probes above
	// the ceiling that were refused (each doubles the rest).
	step, rested, refusedProbes int
	ok                          []bucket // the successes of about the last minute, oldest first
	lastEst                     int
	// probeFrom is when calls started while nothing was known of the
	// limit: the room in flight grows from then on (probeRoom).
	probeFrom time.Time
	// flights are the calls in flight, by process: a crashed process's
	// calls are dropped when it is found gone or its lease runs out.
	flights map[int]flight
	// calls and limited count the successes and the 429s reported, for
	// a person reading the file.
	calls, limited int64
}

// lesson is what the first 429 learned its rate from: the successes since
// from over span. Until its hold ends, late answers to calls the server
// accepted before it refused are added to it.
type lesson struct {
	from  time.Time
	span  time.Duration
	until time.Time
}

// pace is a spacing that holds until a time (a header's reset), and the
// limit of the window it was read from (0 when none was sent).
type pace struct {
	every time.Duration
	until time.Time
	limit float64
}

func (p pace) at(now time.Time) time.Duration {
	if now.Before(p.until) {
		return p.every
	}
	return 0
}

// bucket counts the successes from at for up to bucketWidth: a minute of
// successes at any rate fits in at most 600 of them, which keeps the
// shared file small.
type bucket struct {
	at time.Time
	n  int
}

// flight is one process's calls in flight.
type flight struct {
	n     int
	until time.Time // the lease: dropped after this unless renewed
}

const (
	// bucketWidth is how close successes must be to share a bucket.
	bucketWidth = 100 * time.Millisecond
	// staleAfter is how long a state may go unused before it is
	// forgotten: the limit, or the other users of the key, may have
	// changed since.
	staleAfter = time.Hour
	// flightLease is how long a process's calls count as in flight
	// after its last word, should it have died unseen.
	flightLease = 2 * time.Minute
	// probePoll is how often a caller waiting for room in flight looks
	// again at the other processes' calls.
	probePoll = 50 * time.Millisecond
	// probeDoubling is how often the room in flight doubles while the
	// limit is unknown.
	probeDoubling = time.Second
	// maxProbeDoublings bounds the room's growth (2^20 calls: no limit).
	maxProbeDoublings = 20
)

// refresh forgets a state unused for staleAfter, unless it still holds
// calls back or has calls in flight, and drops the flights whose lease
// ran out.
func (st *state) refresh(now time.Time) {
	for pid, f := range st.flights {
		if !now.Before(f.until) || f.n <= 0 {
			delete(st.flights, pid)
		}
	}
	if !st.updated.IsZero() && now.Sub(st.updated) > staleAfter &&
		!now.Before(latest(st.blocked, st.nextReq, st.nextTok)) && len(st.flights) == 0 {
		*st = state{}
	}
}

// take counts a call of process pid in flight and renews its lease.
func (st *state) take(pid int, now time.Time) {
	if st.flights == nil {
		st.flights = make(map[int]flight)
	}
	f := st.flights[pid]
	st.flights[pid] = flight{n: f.n + 1, until: now.Add(flightLease)}
}

// release counts one call of process pid out of flight.
func (st *state) release(pid int) {
	f, ok := st.flights[pid]
	if !ok {
		return
	}
	if f.n <= 1 {
		delete(st.flights, pid)
		return
	}
	f.n--
	st.flights[pid] = f
}

// inFlight counts the calls in flight of every process, dropping those of
// processes that are gone (self is this process, known alive).
func (st *state) inFlight(self int) int {
	n := 0
	for pid, f := range st.flights {
		if pid != self && !flock.Alive(pid) {
			delete(st.flights, pid)
			continue
		}
		n += f.n
	}
	return n
}

// probeRoom is how many calls may be in flight after probing for elapsed
// while the limit is unknown: one, doubling every probeDoubling. It also
// returns how long until the room grows next.
func probeRoom(elapsed time.Duration) (int, time.Duration) {
	k := min(int(elapsed/probeDoubling), maxProbeDoublings)
	next := time.Duration(k+1)*probeDoubling - elapsed
	return 1 << k, max(next, time.Millisecond)
}

// success records a success at now.
func (st *state) success(now time.Time) {
	st.calls++
	if n := len(st.ok); n > 0 && now.Sub(st.ok[n-1].at) < bucketWidth {
		st.ok[n-1].n++
	} else {
		st.ok = append(st.ok, bucket{at: now, n: 1})
	}
	cut := now.Add(-minute)
	if now.Before(st.lesson.until) && st.lesson.from.Before(cut) {
		// The first lesson still counts the successes since its start.
		cut = st.lesson.from.Add(-time.Nanosecond)
	}
	st.trim(cut)
}

// trim drops the successes at or before cut.
func (st *state) trim(cut time.Time) {
	i := 0
	for i < len(st.ok) && !st.ok[i].at.After(cut) {
		i++
	}
	if i > 0 {
		st.ok = append(st.ok[:0], st.ok[i:]...)
	}
}

// successes counts the successes recorded from from on.
func (st *state) successes(from time.Time) int {
	n := 0
	for _, b := range st.ok {
		if !b.at.Before(from) {
			n += b.n
		}
	}
	return n
}
