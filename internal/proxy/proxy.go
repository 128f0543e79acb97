package proxy

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/cassette"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// maxBody caps a request body, as the simulator does.
const maxBody = 32 << 20

// Config configures a Proxy. Upstream is required; every other zero field
// takes its default.
type Config struct {
	// Upstream is the provider's base URL: https://api.anthropic.com,
	// https://api.openai.com/v1, http://localhost:11434/v1, or a
	// `nightshift sim serve`. A request's path is appended to its path,
	// its query to its query. Required.
	Upstream string
	// Schedule says which requests get which fault. Default none: the
	// proxy is transparent.
	Schedule *Schedule
	// Record, when set, gets every exchange, as the client received it.
	// Default: nothing recorded.
	Record *cassette.Writer
	// Log, when set, gets one line per request saying what the proxy
	// did. It never holds a key. Default: no log.
	Log io.Writer
	// Clock times the delays, the stalls that end and the recorded
	// timings. Default clock.Real{}.
	Clock clock.Clock
	// Transport carries the requests upstream. Default: a clone of
	// http.DefaultTransport that leaves the client's Accept-Encoding
	// as it is (it neither adds gzip nor unzips).
	Transport http.RoundTripper
}

// Proxy forwards the Anthropic Messages API and the OpenAI Chat
// Completions API (and anything else, count_tokens and the model listings
// included) to an upstream, passing the caller's key through, and injects
// faults on its Schedule. Without a fault an exchange is transparent: the
// request goes upstream as it came (less the hop-by-hop headers), and the
// reply comes back with the same status, headers and bytes, each read from
// the upstream flushed to the client at once, so a stream keeps its
// framing and its pace. It is safe for concurrent use.
type Proxy struct {
	upstream  *url.URL
	schedule  *Schedule
	record    *cassette.Writer
	log       io.Writer
	clock     clock.Clock
	transport http.RoundTripper

	seq      atomic.Int64
	logMu    sync.Mutex
	inFlight sync.WaitGroup

	mu       sync.Mutex
	injected map[string]int
}

var _ http.Handler = (*Proxy)(nil)

// New returns a Proxy for cfg.
func New(cfg Config) (*Proxy, error) {
	if cfg.Upstream == "" {
		return nil, errors.New("proxy: no upstream: give the provider's base URL")
	}
	u, err := url.Parse(cfg.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("proxy: upstream %q: want an http:// or https:// URL, for example https://api.anthropic.com", cfg.Upstream)
	}
	if cfg.Schedule != nil {
		if err := cfg.Schedule.Validate(); err != nil {
			return nil, err
		}
	}
	tr := cfg.Transport
	if tr == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true
		t.MaxIdleConnsPerHost = 64
		tr = t
	}
	return &Proxy{
		upstream:  u,
		schedule:  cfg.Schedule,
		record:    cfg.Record,
		log:       cfg.Log,
		clock:     cmp.Or[clock.Clock](cfg.Clock, clock.Real{}),
		transport: tr,
		injected:  map[string]int{},
	}, nil
}

// Requests returns how many requests the proxy has received.
func (p *Proxy) Requests() int { return int(p.seq.Load()) }

// Injected counts the faults injected so far, by kind.
func (p *Proxy) Injected() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.injected))
	for k, v := range p.injected {
		out[k] = v
	}
	return out
}

// exchange is one request on its way through.
type exchange struct {
	n     int
	r     *http.Request
	body  []byte
	route scripted.Route
	call  *scripted.Call
	fault *Fault
	c     *capture
}

// stream reports whether the request asked for a stream.
func (x *exchange) stream() bool { return x.call != nil && x.call.Stream }

// wire is the wire to answer an error on: the route's, else the one the
// headers speak.
func (x *exchange) wire() string {
	if x.route.Wire != "" {
		return x.route.Wire
	}
	if x.r.Header.Get("anthropic-version") != "" || x.r.Header.Get("x-api-key") != "" {
		return "anthropic"
	}
	return "openai"
}

// Wait waits for the exchanges in flight to end, their lines logged and
// recorded: call it after the server stopped taking requests (a stalled
// exchange ends when its client goes away, as closing the server makes
// it), before closing the log or the cassette.
func (p *Proxy) Wait() { p.inFlight.Wait() }

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.inFlight.Add(1)
	defer p.inFlight.Done()
	n := int(p.seq.Add(1))
	start := p.clock.Now()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		p.logf("#%d %s %s -> the client went away while sending", n, r.Method, r.URL.Path)
		return
	}
	if len(body) > maxBody {
		// Forwarding a part would be a different request.
		wire := scripted.RouteOf(r.URL.Path, r.Header).Wire
		if wire == "" {
			wire = "openai"
		}
		scripted.WriteError(w, wire, http.StatusRequestEntityTooLarge, scripted.ErrorBody{
			Message: fmt.Sprintf("nightshift sim proxy: the request body is over %d MiB", maxBody>>20)})
		p.logf("#%d %s %s -> the body is over %d MiB: answered 413, not forwarded", n, r.Method, r.URL.Path, maxBody>>20)
		return
	}
	x := &exchange{
		n: n, r: r, body: body,
		route: scripted.RouteOf(r.URL.Path, r.Header),
		fault: p.schedule.Fault(n),
		c:     &capture{w: w, clock: p.clock, start: start, keep: p.record != nil},
	}
	if x.route.Call() {
		x.call, _ = scripted.ReadCall(x.route, body)
	}
	var note string
	// The recording and the line are written however the exchange
	// ends, a reset included; the line last, so that a reader of the log
	// knows the exchange is recorded.
	defer func() {
		p.save(x)
		p.logf("#%d %s %s%s -> %s", n, r.Method, r.URL.Path, streamNote(x), note)
	}()
	note = p.serve(x)
}

func streamNote(x *exchange) string {
	if x.call == nil {
		return ""
	}
	return fmt.Sprintf(" stream=%t", x.call.Stream)
}

// serve answers one exchange and says what it did.
func (p *Proxy) serve(x *exchange) string {
	f := x.fault
	if f == nil {
		return p.forward(x)
	}
	p.count(f.kind)
	prefix := "fault " + f.kind + ": "
	if f.Delay > 0 {
		if err := p.clock.Sleep(x.r.Context(), f.Delay); err != nil {
			return prefix + "the client went away during the delay"
		}
	}
	switch {
	case f.Status != 0:
		h := x.c.Header()
		for k, v := range f.Headers {
			h.Set(k, v)
		}
		var eb scripted.ErrorBody
		if f.Error != nil {
			eb = *f.Error
		}
		if eb.Type == "" && eb.Message == "" {
			// The type defaults from the status, as the wire sends it;
			// the message says who sent it.
			eb.Message = "nightshift sim proxy: injected fault " + f.kind
		}
		scripted.WriteError(x.c, x.wire(), f.Status, eb)
		return prefix + fmt.Sprintf("answered %d%s, not forwarded", x.c.status, retryNote(h))
	case f.Reset == "before_headers":
		x.c.reset()
		return prefix + "connection reset before the headers, not forwarded"
	case f.Stall.On && !x.stream():
		if !p.wait(x, f.Stall) {
			return prefix + "stalled before the headers until the client gave up, not forwarded"
		}
		return prefix + fmt.Sprintf("stalled %v before the headers, then %s", f.Stall.For, p.forward(x))
	}
	return prefix + p.forward(x)
}

func retryNote(h http.Header) string {
	var parts []string
	for _, k := range []string{"Retry-After", "Retry-After-Ms"} {
		if v := h.Get(k); v != "" {
			parts = append(parts, strings.ToLower(k)+"="+v)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, " ") + ")"
}

// wait waits out a stall; false when it lasts until the client gives up
// (and it has).
func (p *Proxy) wait(x *exchange, s Stall) bool {
	if s.For == 0 {
		x.c.endedAs = cassette.EndStall
		<-x.r.Context().Done()
		return false
	}
	if err := p.clock.Sleep(x.r.Context(), s.For); err != nil {
		x.c.endedAs = cassette.EndStall
		return false
	}
	return true
}

func (p *Proxy) count(kind string) {
	p.mu.Lock()
	p.injected[kind]++
	p.mu.Unlock()
}

// save records the exchange.
func (p *Proxy) save(x *exchange) {
	if p.record == nil {
		return
	}
	p.record.AddSecrets(keysOf(x.r)...)
	ex := cassette.Exchange{N: x.n, Request: cassette.Digest(x.r, x.body), Response: x.c.response()}
	if x.fault != nil {
		ex.Fault = x.fault.kind
	}
	if err := p.record.Write(ex); err != nil {
		p.logf("#%d: not recorded: %v", x.n, err)
	}
}

// keysOf returns the credentials a request carries: its key headers'
// values and any query parameter named like a key.
func keysOf(r *http.Request) []string {
	var keys []string
	for _, h := range []string{"X-Api-Key", "Api-Key", "Authorization", "Proxy-Authorization", "Cookie"} {
		for _, v := range r.Header.Values(h) {
			keys = append(keys, v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				keys = append(keys, strings.TrimSpace(tok))
			}
		}
	}
	for name, vs := range r.URL.Query() {
		if n := strings.ToLower(name); n == "key" || strings.Contains(n, "api-key") || strings.Contains(n, "api_key") || strings.Contains(n, "token") {
			keys = append(keys, vs...)
		}
	}
	return keys
}

func (p *Proxy) logf(format string, args ...any) {
	if p.log == nil {
		return
	}
	p.logMu.Lock()
	defer p.logMu.Unlock()
	fmt.Fprintf(p.log, "proxy: "+format+"\n", args...)
}

// elapsed is the time since the exchange began, for the log.
func (x *exchange) elapsed() time.Duration {
	return x.c.clock.Now().Sub(x.c.start).Round(time.Millisecond)
}
