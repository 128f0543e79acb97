package proxy

import (
	"bytes"
	"net/http"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/cassette"
)

// capture stands between the handler and the client's ResponseWriter: it
// counts what was sent for the log line and, when recording, keeps it
// (each write with its time) for the cassette.
type capture struct {
	w       http.ResponseWriter
	clock   clock.Clock
	start   time.Time
	keep    bool
	status  int
	header  http.Header
	headAt  time.Duration
	bytes   int
	writes  []write
	stream  bool
	endedAs string
}

type write struct {
	at   time.Duration
	data []byte
}

var _ http.ResponseWriter = (*capture)(nil)

func (c *capture) Header() http.Header { return c.w.Header() }

func (c *capture) WriteHeader(status int) {
	if c.status != 0 {
		return
	}
	c.status = status
	c.headAt = c.clock.Now().Sub(c.start)
	c.stream = isStream(c.w.Header())
	if c.keep {
		c.header = c.w.Header().Clone()
	}
	c.w.WriteHeader(status)
}

func (c *capture) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	n, err := c.w.Write(p)
	c.bytes += n
	if c.keep && n > 0 {
		c.writes = append(c.writes, write{c.clock.Now().Sub(c.start), bytes.Clone(p[:n])})
	}
	return n, err
}

// Unwrap lets http.ResponseController flush and hijack the client's
// connection.
func (c *capture) Unwrap() http.ResponseWriter { return c.w }

// flush sends what was written so far.
func (c *capture) flush() {
	http.NewResponseController(c.w).Flush() //nolint:errcheck // a client gone is seen at the next write
}

// reset closes the client's connection without finishing the reply.
func (c *capture) reset() {
	if c.status != 0 {
		c.flush()
	}
	c.endedAs = cassette.EndReset
	conn, _, err := http.NewResponseController(c.w).Hijack()
	if err != nil {
		// HTTP/2 cannot be hijacked; aborting the handler resets the
		// stream.
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// response is what the client received, for the cassette.
func (c *capture) response() cassette.Response {
	r := cassette.Response{
		Status:   c.status,
		Header:   c.header,
		End:      c.endedAs,
		HeaderMS: ms(c.headAt),
		TotalMS:  ms(c.clock.Now().Sub(c.start)),
	}
	if !c.stream {
		var body []byte
		for _, w := range c.writes {
			body = append(body, w.data...)
		}
		r.BodyBase64 = body // the Writer stores it as text when it is UTF-8
		return r
	}
	// A stream is kept event by event, each at the time of the write
	// that completed it.
	var pending []byte
	for _, w := range c.writes {
		pending = append(pending, w.data...)
		for {
			n := eventEnd(pending)
			if n < 0 {
				break
			}
			r.Events = append(r.Events, cassette.Event{AtMS: ms(w.at), Data: string(pending[:n])})
			pending = pending[n:]
		}
	}
	if len(pending) > 0 {
		last := c.writes[len(c.writes)-1].at
		r.Events = append(r.Events, cassette.Event{AtMS: ms(last), Data: string(pending)})
	}
	return r
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
