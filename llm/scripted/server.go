package scripted

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
)

// SessionHeader is the request header whose value separates identical
// conversations in the attempt counters (Config.Session in process).
const SessionHeader = "X-Sim-Session"

// maxBody caps a request body; real conversations stay far below it.
const maxBody = 32 << 20

// ServerConfig configures a Server. The zero value is ready to use.
type ServerConfig struct {
	// Clock times the replies' delays and dates the OpenAI replies;
	// default clock.Real{}.
	Clock clock.Clock
	// Log, when set, gets one line per request: route, script, position,
	// attempt and what was answered. Default: no log.
	Log io.Writer
	// OnRequest, when set, is called with every well-formed request
	// before it is answered: the route path, the request as parsed, and
	// the raw body. It may be called concurrently.
	OnRequest func(path string, req *llm.Request, raw []byte)
	// ForgetRequests stops the server from keeping the requests for
	// Requests, so a long-running `sim serve` does not grow without end.
	// Default false: tests read them.
	ForgetRequests bool
}

// Server plays a scenario over HTTP, speaking the Anthropic Messages API
// (POST /v1/messages) and the OpenAI Chat Completions API (POST
// /v1/chat/completions and /chat/completions), streaming and not, so the
// real SDK clients can be tested against it. It shares its reply
// selection with Model.
type Server struct {
	eng       *engine
	clock     clock.Clock
	log       io.Writer
	onRequest func(string, *llm.Request, []byte)
	forget    bool

	mu       sync.Mutex
	requests []llm.Request
	logMu    sync.Mutex
	seq      atomic.Int64
}

var _ http.Handler = (*Server)(nil)

// NewServer returns a Server playing sc.
func NewServer(sc *Scenario, cfg ServerConfig) *Server {
	return &Server{
		eng:       newEngine(sc),
		clock:     cmp.Or[clock.Clock](cfg.Clock, clock.Real{}),
		log:       cfg.Log,
		onRequest: cfg.OnRequest,
		forget:    cfg.ForgetRequests,
	}
}

// Requests returns a copy of every well-formed request received so far, in
// arrival order.
func (s *Server) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.requests...)
}

// dialect is one provider's wire format.
type dialect interface {
	// decode parses a request body.
	decode(raw []byte) (*llm.Request, wireOptions, error)
	// writeError answers with an error status in the provider's format.
	writeError(w http.ResponseWriter, status int, body ErrorBody)
	// writeReply answers with one JSON body.
	writeReply(w http.ResponseWriter, r *wireReply)
	// writeStream answers with server-sent events. With cut set it stops
	// after the first events, for the caller to drop the connection.
	writeStream(w http.ResponseWriter, r *wireReply, opts wireOptions, cut bool)
}

// wireOptions are the transport choices a request makes.
type wireOptions struct {
	stream       bool
	includeUsage bool
}

// wireReply is a reply ready to be encoded.
type wireReply struct {
	id      string
	model   string
	created int64
	content []llm.Block
	stop    llm.StopReason
	usage   llm.Usage
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var d dialect
	switch r.URL.Path {
	case "/v1/messages":
		d = anthropicDialect{}
	case "/v1/chat/completions", "/chat/completions":
		d = openaiDialect{}
	default:
		anthropicDialect{}.writeError(w, http.StatusNotFound, ErrorBody{Type: "not_found_error", Message: "no route " + r.URL.Path + " (want /v1/messages or /v1/chat/completions)"})
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		d.writeError(w, http.StatusMethodNotAllowed, ErrorBody{Type: "invalid_request_error", Message: "use POST"})
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return // the client went away
	}
	req, opts, err := d.decode(raw)
	if err != nil {
		s.logf("%s: 400 %v", r.URL.Path, err)
		d.writeError(w, http.StatusBadRequest, ErrorBody{Type: "invalid_request_error", Message: err.Error()})
		return
	}
	s.record(r.URL.Path, req, raw)
	c := s.eng.choose(req, r.Header.Get(SessionHeader))
	rep := c.reply
	if rep.Delay > 0 {
		if err := s.clock.Sleep(r.Context(), rep.Delay); err != nil {
			s.logf("%s %s: client gone during delay", r.URL.Path, describe(c))
			return
		}
	}
	s.logf("%s stream=%t %s -> %s", r.URL.Path, opts.stream, describe(c), outcome(rep))
	if rep.Status != 0 {
		for k, v := range rep.header() {
			w.Header()[k] = v
		}
		d.writeError(w, rep.Status, rep.errorBody())
		return
	}
	if rep.Drop && !opts.stream {
		drop(w)
		return
	}
	wr := &wireReply{
		id:      fmt.Sprintf("scripted_%d", s.seq.Add(1)),
		model:   cmp.Or(req.Model, "scripted"),
		created: s.clock.Now().Unix(),
		content: rep.content(),
		stop:    rep.stop(),
	}
	wr.usage = rep.usage(req, wr.content)
	if !opts.stream {
		d.writeReply(w, wr)
		return
	}
	d.writeStream(w, wr, opts, rep.Drop)
	if rep.Drop {
		drop(w)
	}
}

// drop closes the connection without finishing the response, as a network
// failure mid-reply would.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 cannot be hijacked; aborting the handler resets the stream.
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

func (s *Server) record(path string, req *llm.Request, raw []byte) {
	if !s.forget {
		s.mu.Lock()
		s.requests = append(s.requests, *req)
		s.mu.Unlock()
	}
	if s.onRequest != nil {
		s.onRequest(path, req, raw)
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, "sim: "+format+"\n", args...)
}

func describe(c choice) string {
	if c.script == "" {
		return fmt.Sprintf("position=%d", c.position)
	}
	return fmt.Sprintf("script=%s position=%d attempt=%d", c.script, c.position, c.attempt)
}

// outcome summarises a reply for the request log.
func outcome(r *Reply) string {
	switch {
	case r.Status != 0:
		return fmt.Sprintf("status %d %s", r.Status, r.errorBody().Type)
	case r.Drop:
		return "drop"
	case r.Empty:
		return "empty"
	}
	s := fmt.Sprintf("%s text=%dB", r.stop(), len(r.Text))
	for _, tc := range r.ToolCalls {
		s += " tool=" + tc.Name
	}
	return s
}
