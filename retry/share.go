package retry

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nightshift-dev/nightshift/internal/flock"
	"github.com/nightshift-dev/nightshift/statedir"
)

// fileVersion is the format of the shared file. A file of another
// version is read as empty and overwritten: a process of another
// nightshift version then paces on its own state.
const fileVersion = 1

// LimiterFileName is the name of the file in which the limiters of one
// endpoint and credential share their state: the first 32 hex digits of
// a SHA-256 over both, and ".json". Neither can be read back from it.
func LimiterFileName(endpoint, credential string) string {
	sum := sha256.Sum256([]byte("nightshift limiter\x00" + endpoint + "\x00" + credential))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// OpenLimiter returns the limiter of one endpoint and credential that the
// processes of the machine share through a file in cfg.Dir (created, mode
// 0700, when missing; a symlink there is refused, as is one in the
// file's place), named LimiterFileName(endpoint, credential). The
// file holds times and counts only, never the endpoint or the key. Every
// Wait and Observe reads and writes it under an exclusive file lock
// (flock), which the system releases when a process dies, so a crash
// cannot leave it locked; the calls a dead process had in flight stop
// counting as soon as another process sees it gone, or after two minutes.
// A file that cannot be read (or was left half-written) is taken as
// empty. With cfg.Dir empty, it is NewLimiter(cfg).
//
// It fails where files cannot be locked (a platform or file system
// without flock); the caller may then pace alone with NewLimiter.
func OpenLimiter(cfg LimiterConfig, endpoint, credential string) (*Limiter, error) {
	l := NewLimiter(cfg)
	if cfg.Dir == "" {
		return l, nil
	}
	sweep(cfg.Dir, time.Now())
	// Like every state file, never opened through a planted symlink.
	f, err := flock.OpenShared(cfg.Dir, LimiterFileName(endpoint, credential), "retry: limiter ")
	if err != nil {
		return nil, err
	}
	l.file = f
	return l, nil
}

// forgetAfter is how long a limiter file may go unwritten before it is
// removed: its state was forgotten after staleAfter anyway, and a
// credential used once (a scenario in a temporary folder, a rotated key)
// should not leave a file behind for ever.
const forgetAfter = 24 * time.Hour

// sweep removes the limiter files in dir unwritten since forgetAfter. A
// file is removed only under its lock, and only if it is still that old
// once locked, so that a process that begins using it meanwhile keeps it.
func sweep(dir string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		if fi, err := e.Info(); err != nil || now.Sub(fi.ModTime()) < forgetAfter {
			continue
		}
		path := filepath.Join(dir, e.Name())
		f, err := statedir.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if flock.TryLock(f) == nil {
			if fi, err := f.Stat(); err == nil && now.Sub(fi.ModTime()) >= forgetAfter {
				os.Remove(path)
			}
		}
		f.Close() // releases the lock
	}
}

// Close stops sharing: the limiter goes on pacing this process alone from
// what it knew last. It returns the first error met while sharing, if
// any, or the error of closing the file.
func (l *Limiter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

// Err returns the first error met while sharing the limiter's file (a
// lock, a read or a write that failed), or nil. The limiter goes on
// pacing on what it knows after such an error.
func (l *Limiter) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	return l.file.Err()
}

// load replaces st with the file's state. An empty, unreadable or
// other-version file leaves st as it is: what this process knows is the
// best guess, and the next save writes it.
func load(f *flock.Shared, st *state) {
	var fs fileState
	if _, ok := f.Load(&fs, 1<<20); ok && fs.Version == fileVersion {
		*st = fs.state()
	}
}

// save writes st over the file's content.
func save(f *flock.Shared, st *state) { f.Save(fileOf(st)) }

// fileState is the shared file's format. Times are Unix nanoseconds (0 =
// none), spans nanoseconds. See docs/limits.md.
type fileState struct {
	Version      int                   `json:"version"`
	Updated      int64                 `json:"updated"`
	LastStart    int64                 `json:"last_start,omitempty"`
	NextRequest  int64                 `json:"next_request,omitempty"`
	NextToken    int64                 `json:"next_token,omitempty"`
	BlockedUntil int64                 `json:"blocked_until,omitempty"`
	Holds        uint64                `json:"holds,omitempty"`
	RequestPace  *filePace             `json:"request_pace,omitempty"`
	TokenPace    *filePace             `json:"token_pace,omitempty"`
	HeadersAt    int64                 `json:"headers_at,omitempty"`
	LearnedRPM   float64               `json:"learned_rpm,omitempty"`
	CalmUntil    int64                 `json:"calm_until,omitempty"`
	Lesson       *fileLesson           `json:"lesson,omitempty"`
	Window       int64                 `json:"window,omitempty"`
	GoodRPM      float64               `json:"good_rpm,omitempty"`
	CeilingRPM   float64               `json:"ceiling_rpm,omitempty"`
	PacedFrom    int64                 `json:"paced_from,omitempty"`
	Paced        int                   `json:"paced,omitempty"`
	ProbeStep    int                   `json:"probe_step,omitempty"`
	Rested       int                   `json:"rested,omitempty"`
	RefusedProbe int                   `json:"refused_probes,omitempty"`
	Successes    [][2]int64            `json:"successes,omitempty"`
	LastEstimate int                   `json:"last_estimate,omitempty"`
	ProbeFrom    int64                 `json:"probe_from,omitempty"`
	InFlight     map[string]fileFlight `json:"in_flight,omitempty"`
	Calls        int64                 `json:"calls"`
	Limited      int64                 `json:"limited"`
}

type filePace struct {
	Every int64   `json:"every"`
	Until int64   `json:"until"`
	Limit float64 `json:"limit,omitempty"`
}

type fileLesson struct {
	From  int64 `json:"from"`
	Span  int64 `json:"span"`
	Until int64 `json:"until"`
}

type fileFlight struct {
	Calls int   `json:"calls"`
	Until int64 `json:"until"`
}

func fileOf(st *state) fileState {
	fs := fileState{
		Version:      fileVersion,
		Updated:      unixNano(st.updated),
		LastStart:    unixNano(st.lastStart),
		NextRequest:  unixNano(st.nextReq),
		NextToken:    unixNano(st.nextTok),
		BlockedUntil: unixNano(st.blocked),
		Holds:        st.gen,
		HeadersAt:    unixNano(st.headersAt),
		LearnedRPM:   st.learned,
		CalmUntil:    unixNano(st.calm),
		Window:       int64(st.window),
		GoodRPM:      st.good,
		CeilingRPM:   st.ceiling,
		PacedFrom:    unixNano(st.pacedFrom),
		Paced:        st.paced,
		ProbeStep:    st.step,
		Rested:       st.rested,
		RefusedProbe: st.refusedProbes,
		LastEstimate: st.lastEst,
		ProbeFrom:    unixNano(st.probeFrom),
		Calls:        st.calls,
		Limited:      st.limited,
	}
	if st.reqPace != (pace{}) {
		fs.RequestPace = &filePace{Every: int64(st.reqPace.every), Until: unixNano(st.reqPace.until), Limit: st.reqPace.limit}
	}
	if st.tokPace != (pace{}) {
		fs.TokenPace = &filePace{Every: int64(st.tokPace.every), Until: unixNano(st.tokPace.until), Limit: st.tokPace.limit}
	}
	if st.lesson != (lesson{}) {
		fs.Lesson = &fileLesson{From: unixNano(st.lesson.from), Span: int64(st.lesson.span), Until: unixNano(st.lesson.until)}
	}
	for _, b := range st.ok {
		fs.Successes = append(fs.Successes, [2]int64{unixNano(b.at), int64(b.n)})
	}
	if len(st.flights) > 0 {
		fs.InFlight = make(map[string]fileFlight, len(st.flights))
		for pid, f := range st.flights {
			fs.InFlight[strconv.Itoa(pid)] = fileFlight{Calls: f.n, Until: unixNano(f.until)}
		}
	}
	return fs
}

func (fs fileState) state() state {
	st := state{
		updated:       fromNano(fs.Updated),
		lastStart:     fromNano(fs.LastStart),
		nextReq:       fromNano(fs.NextRequest),
		nextTok:       fromNano(fs.NextToken),
		blocked:       fromNano(fs.BlockedUntil),
		gen:           fs.Holds,
		headersAt:     fromNano(fs.HeadersAt),
		learned:       fs.LearnedRPM,
		calm:          fromNano(fs.CalmUntil),
		window:        time.Duration(fs.Window),
		good:          fs.GoodRPM,
		ceiling:       fs.CeilingRPM,
		pacedFrom:     fromNano(fs.PacedFrom),
		step:          fs.ProbeStep,
		paced:         fs.Paced,
		rested:        fs.Rested,
		refusedProbes: fs.RefusedProbe,
		lastEst:       fs.LastEstimate,
		probeFrom:     fromNano(fs.ProbeFrom),
		calls:         fs.Calls,
		limited:       fs.Limited,
	}
	if p := fs.RequestPace; p != nil {
		st.reqPace = pace{every: time.Duration(p.Every), until: fromNano(p.Until), limit: p.Limit}
	}
	if p := fs.TokenPace; p != nil {
		st.tokPace = pace{every: time.Duration(p.Every), until: fromNano(p.Until), limit: p.Limit}
	}
	if s := fs.Lesson; s != nil {
		st.lesson = lesson{from: fromNano(s.From), span: time.Duration(s.Span), until: fromNano(s.Until)}
	}
	for _, b := range fs.Successes {
		st.ok = append(st.ok, bucket{at: fromNano(b[0]), n: int(b[1])})
	}
	for k, f := range fs.InFlight {
		pid, err := strconv.Atoi(k)
		if err != nil || f.Calls <= 0 {
			continue
		}
		if st.flights == nil {
			st.flights = make(map[int]flight)
		}
		st.flights[pid] = flight{n: f.Calls, until: fromNano(f.Until)}
	}
	return st
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
