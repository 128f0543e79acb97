package cassette

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// Version is the format's version, in every cassette's header line.
const Version = 1

// Header is a cassette's first line.
type Header struct {
	// Cassette is the format's version: Version.
	Cassette int `json:"cassette"`
	// Upstream is where the recorded requests went, credentials redacted.
	Upstream string `json:"upstream,omitempty"`
	// Recorded is when the recording started.
	Recorded time.Time `json:"recorded"`
}

// Exchange is one request and the reply its client received.
type Exchange struct {
	// N is the request's number in the recording session, from 1, in
	// the order the requests arrived (the lines are in the order the
	// replies ended).
	N int `json:"n"`
	// Request is the request's digest.
	Request Request `json:"request"`
	// Fault names the fault the proxy injected into this exchange
	// (internal/proxy's kinds: 429, cut, empty, ...); "" for none. The
	// Response is what the client received, the fault included.
	Fault string `json:"fault,omitempty"`
	// Response is the reply as the client received it.
	Response Response `json:"response"`
}

// Request is a request's digest: what a replay matches on. It holds no
// header and no body: the conversation is only hashed.
type Request struct {
	// Method and Path are the request line's (the path without its query).
	Method string `json:"method"`
	Path   string `json:"path"`
	// Wire is "anthropic" or "openai", and Route "call", "count_tokens"
	// or "models" (llm/scripted.RouteOf); both "" for other paths.
	Wire  string `json:"wire,omitempty"`
	Route string `json:"route,omitempty"`
	// Stream is the request's "stream": true.
	Stream bool `json:"stream,omitempty"`
	// Model is the model the request named.
	Model string `json:"model,omitempty"`
	// Position is the number of assistant messages the conversation held.
	Position int `json:"position"`
	// Conversation hashes the system prompt and every message
	// ("sha256:" and hex), as a scenario's attempt counters key a
	// conversation; for a body that could not be read as a call, the
	// body's own hash; "" for a request without a body.
	Conversation string `json:"conversation,omitempty"`
	// System hashes the system prompt alone.
	System string `json:"system,omitempty"`
	// Session is the X-Sim-Session header, which keeps identical
	// conversations apart.
	Session string `json:"session,omitempty"`
}

// Response is a reply as its client received it.
type Response struct {
	// Status is the status sent; 0 when the connection was reset before
	// any header.
	Status int `json:"status"`
	// Header holds the headers sent, less those that carry credentials
	// or belong to one connection (Set-Cookie, Connection, Date, ...).
	Header http.Header `json:"header,omitempty"`
	// Body is the body of a reply that is not a stream, when it is
	// UTF-8; BodyBase64 holds any other.
	Body       string `json:"body,omitempty"`
	BodyBase64 []byte `json:"body_base64,omitempty"`
	// Events are a stream's server-sent events, each as sent (its
	// blank line included), with the time it went out. A stream's
	// trailing bytes that end no event are its last entry.
	Events []Event `json:"events,omitempty"`
	// End says how the reply ended: "" whole, "reset" (the connection
	// was reset after what is recorded), "stall" (nothing more was sent
	// until the client gave up).
	End string `json:"end,omitempty"`
	// HeaderMS is when the headers went out and TotalMS when the reply
	// ended, in milliseconds from the request's arrival.
	HeaderMS float64 `json:"header_ms"`
	TotalMS  float64 `json:"total_ms"`
}

// Event is one server-sent event of a stream.
type Event struct {
	// AtMS is when it was sent, in milliseconds from the request's
	// arrival.
	AtMS float64 `json:"at_ms"`
	// Data is the event's bytes as sent.
	Data string `json:"data"`
}

// Ends of a reply.
const (
	EndReset = "reset"
	EndStall = "stall"
)

// body returns the non-stream body's bytes.
func (r *Response) body() []byte {
	if r.BodyBase64 != nil {
		return r.BodyBase64
	}
	return []byte(r.Body)
}

// Cassette is a loaded recording.
type Cassette struct {
	Header    Header
	Exchanges []Exchange
}

// Load reads the cassette at path.
func Load(path string) (*Cassette, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	defer f.Close()
	c, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Read reads a cassette: its header line, then one exchange per line.
// Unknown fields are errors, so that a cassette of another version or a
// hand edit gone wrong is named, not half played.
func Read(r io.Reader) (*Cassette, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	c := &Cassette{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if c.Header.Cassette == 0 {
			if err := dec.Decode(&c.Header); err != nil || c.Header.Cassette == 0 {
				return nil, fmt.Errorf("cassette: line %d: not a cassette header ({\"cassette\": %d, ...})", line, Version)
			}
			if c.Header.Cassette != Version {
				return nil, fmt.Errorf("cassette: version %d, this nightshift reads version %d", c.Header.Cassette, Version)
			}
			continue
		}
		var ex Exchange
		if err := dec.Decode(&ex); err != nil {
			return nil, fmt.Errorf("cassette: line %d: %w", line, err)
		}
		c.Exchanges = append(c.Exchanges, ex)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cassette: line %d: %w", line+1, err)
	}
	if c.Header.Cassette == 0 {
		return nil, errors.New("cassette: the file is empty")
	}
	return c, nil
}
