package scripted

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
)

// Down is a scenario's outage (`down: {after: 20, for: 30s}`): after
// After model calls were answered, every model call for the span For is
// refused as a provider that is down refuses it, and then the scenario
// goes on as before. It is what a circuit breaker is tested against
// (package breaker).
type Down struct {
	// After is how many model calls are answered before the outage
	// begins; 0: at the first.
	After int `yaml:"after"`
	// For is how long it lasts, from the first call it refuses; required.
	For time.Duration `yaml:"for"`
	// Status is the answer during it: 0 (the default) closes the
	// connection without a reply, as a server that is down (the client
	// sees a failed connection); 503 or 529 (any 5xx) answers that status
	// in the wire's error format, with no Retry-After.
	Status int `yaml:"status"`
}

func (d *Down) validate() error {
	switch {
	case d == nil:
		return nil
	case d.For <= 0:
		return fmt.Errorf("down: for is %s: want how long the outage lasts, such as 30s", d.For)
	case d.After < 0:
		return fmt.Errorf("down: after is %d: want how many calls are answered first (0 or more)", d.After)
	case d.Status != 0 && (d.Status < 500 || d.Status > 599):
		return fmt.Errorf("down: status is %d: want 503, 529 or another 5xx (or none: the connection is closed)", d.Status)
	}
	return nil
}

// outage is the state of a Down: the calls answered so far, and when the
// outage began.
type outage struct {
	cfg   Down
	clock clock.Clock

	mu      sync.Mutex
	calls   int
	from    time.Time
	refused int
}

func newOutage(d *Down, clk clock.Clock) *outage {
	if d == nil {
		return nil
	}
	return &outage{cfg: *d, clock: clk}
}

// down counts one model call and reports whether it falls in the outage,
// and how long the outage has left.
func (o *outage) down() (bool, time.Duration) {
	if o == nil {
		return false, 0
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.clock.Now()
	if o.from.IsZero() && o.calls >= o.cfg.After {
		o.from = now
	}
	if !o.from.IsZero() {
		if end := o.from.Add(o.cfg.For); now.Before(end) {
			o.refused++
			return true, end.Sub(now)
		}
	}
	o.calls++
	return false, 0
}

// Refused is how many model calls the scenario's outage refused so far
// (0 without one).
func (s *Server) Refused() int {
	if s.outage == nil {
		return 0
	}
	s.outage.mu.Lock()
	defer s.outage.mu.Unlock()
	return s.outage.refused
}

// serveDown answers a model call that falls in the outage, reporting
// whether it did.
func (s *Server) serveDown(w http.ResponseWriter, r *http.Request) bool {
	if !modelCall(r) {
		return false
	}
	isDown, left := s.outage.down()
	if !isDown {
		return false
	}
	st := s.outage.cfg.Status
	if st == 0 {
		s.logf("%s: down (%s left): connection closed", r.URL.Path, left.Round(time.Millisecond))
		refuse(w)
		return true
	}
	s.logf("%s: down (%s left): %d", r.URL.Path, left.Round(time.Millisecond), st)
	var d dialect = openaiDialect{}
	if r.URL.Path == "/v1/messages" {
		d = anthropicDialect{}
	}
	rid := s.startReply(w, d)
	d.writeError(w, st, ErrorBody{}.withDefaults(st, d.wire()), rid)
	return true
}

// refuse closes the connection at once, resetting it, without reading
// the request: the nearest a running server comes to one that is down.
func refuse(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if t, ok := conn.(*net.TCPConn); ok {
		t.SetLinger(0) //nolint:errcheck // a plain close is the fallback
	}
	conn.Close()
}

// downError is the in-process model's failure during the outage.
func (o *outage) downError() error {
	if st := o.cfg.Status; st != 0 {
		return &llm.Error{Provider: "scripted", Class: llm.ClassifyStatus(st, "", ""), Status: st, Message: fmt.Sprintf("scripted outage: %d", st)}
	}
	return &llm.Error{Provider: "scripted", Class: llm.Connection, Message: "connection refused (scripted outage)"}
}
