package scripted

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// SessionHeader is the request header whose value separates identical
// conversations in the attempt counters and names the prompt cache the
// request shares with the others of its session (Config.Session in
// process).
const SessionHeader = "X-Sim-Session"

// maxBody caps a request body; real conversations stay far below it.
const maxBody = 32 << 20

// ServerConfig configures a Server. The zero value is ready to use.
type ServerConfig struct {
	// Clock times the replies' delays and the prompt cache's lifetimes
	// and dates the OpenAI replies; default clock.Real{}.
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
	// Models are the model IDs GET /v1/models lists. Default: "scripted"
	// and the model table's models (llm/models) of the API asked. Any
	// model name is answered in a call, listed or not.
	Models []string
}

// Server plays a scenario over HTTP, speaking the Anthropic Messages API
// (POST /v1/messages, POST /v1/messages/count_tokens) and the OpenAI Chat
// Completions API (POST /v1/chat/completions and /chat/completions),
// streaming and not, and both APIs' model listing (GET /v1/models and
// /v1/models/ID, told apart by the anthropic-version header Anthropic's
// clients send), so the real SDK clients can be tested against it. It
// shares its reply selection with Model.
//
// It answers as the real APIs do where a client could notice: request IDs
// in the request-id (Anthropic) or x-request-id (OpenAI) header of every
// reply, errors in each API's own vocabulary, Anthropic's refusal of
// unknown request fields, OpenAI's n choices and message.refusal, tool-call
// IDs in each provider's shape.
type Server struct {
	eng       *engine
	cache     *promptCache
	clock     clock.Clock
	log       io.Writer
	onRequest func(string, *llm.Request, []byte)
	forget    bool
	models    []string
	outage    *outage

	mu       sync.Mutex
	requests []llm.Request
	logMu    sync.Mutex
}

var _ http.Handler = (*Server)(nil)

// NewServer returns a Server playing sc.
func NewServer(sc *Scenario, cfg ServerConfig) *Server {
	clk := cmp.Or[clock.Clock](cfg.Clock, clock.Real{})
	return &Server{
		eng:       newEngine(sc),
		cache:     newPromptCache(clk),
		clock:     clk,
		log:       cfg.Log,
		onRequest: cfg.OnRequest,
		forget:    cfg.ForgetRequests,
		models:    cfg.Models,
		outage:    newOutage(sc.Down, clk),
	}
}

// Requests returns a copy of every well-formed request received so far, in
// arrival order.
func (s *Server) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.requests...)
}

// wire names a wire format; the in-process model has none.
type wire string

const (
	wireNone      wire = ""
	wireAnthropic wire = "anthropic"
	wireOpenAI    wire = "openai"
)

// dialect is one provider's wire format.
type dialect interface {
	// wire names the format.
	wire() wire
	// requestIDHeader is the header every reply carries its ID in.
	requestIDHeader() string
	// toolID makes the ID of a tool call the scenario gave none.
	toolID(n int) string
	// decode parses a request body. A *wireError says how to refuse it;
	// any other error is a 400 invalid request.
	decode(raw []byte) (*llm.Request, wireOptions, error)
	// writeError answers with an error status in the provider's format.
	writeError(w http.ResponseWriter, status int, body ErrorBody, requestID string)
	// writeReply answers with one JSON body.
	writeReply(w http.ResponseWriter, r *wireReply)
	// writeStream answers with server-sent events, ended as end says.
	writeStream(w http.ResponseWriter, r *wireReply, opts wireOptions, end streamEnd)
	// writeModels answers a model listing (one == "") or one model.
	writeModels(w http.ResponseWriter, ids []string, one string, created time.Time, requestID string)
}

// wireError is a refused request: the status and body to answer with.
type wireError struct {
	status int
	body   ErrorBody
}

func (e *wireError) Error() string { return e.body.Message }

// wireOptions are the transport choices a request makes.
type wireOptions struct {
	stream       bool
	includeUsage bool
	// n is the number of choices asked for (OpenAI); 1 by default.
	n int
	// marks are the request's cache breakpoints (Anthropic).
	marks marks
}

// streamEnd says how a stream ends: normally, cut after its first events
// (for the caller to drop the connection), or with an error event after
// its first events.
type streamEnd struct {
	cut      bool
	errEvent *ErrorBody
}

// stops reports whether the stream stops after its first events.
func (e streamEnd) stops() bool { return e.cut || e.errEvent != nil }

// wireReply is a reply ready to be encoded.
type wireReply struct {
	id        string
	requestID string
	model     string
	created   int64
	// choices holds each choice's content; only OpenAI's n asks for more
	// than one.
	choices [][]llm.Block
	stop    llm.StopReason
	// usage counts every choice's output, as the APIs bill them.
	usage llm.Usage
}

// content is the first choice's content.
func (r *wireReply) content() []llm.Block { return r.choices[0] }

func dialectOf(r *http.Request) dialect {
	if r.Header.Get("anthropic-version") != "" || r.Header.Get("x-api-key") != "" {
		return anthropicDialect{}
	}
	return openaiDialect{}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.serveDown(w, r) {
		return // the scenario's outage (outage.go)
	}
	if s.serveLocal(w, r) {
		return // the endpoints of the scenario's local server (local.go)
	}
	switch p := r.URL.Path; {
	case p == "/v1/messages":
		s.serveTurn(w, r, anthropicDialect{})
	case p == "/v1/chat/completions" || p == "/chat/completions":
		s.serveTurn(w, r, openaiDialect{})
	case p == "/v1/messages/count_tokens":
		s.serveCountTokens(w, r)
	case p == "/v1/models" || p == "/models":
		s.serveModels(w, r, "")
	case strings.HasPrefix(p, "/v1/models/") || strings.HasPrefix(p, "/models/"):
		s.serveModels(w, r, p[strings.LastIndex(p, "/models/")+len("/models/"):])
	default:
		d := dialectOf(r)
		rid := s.startReply(w, d)
		d.writeError(w, http.StatusNotFound, ErrorBody{Type: "not_found_error", Message: "no route " + p +
			" (want /v1/messages, /v1/messages/count_tokens, /v1/chat/completions or /v1/models)"}.withDefaults(http.StatusNotFound, d.wire()), rid)
	}
}

// startReply gives the reply its request ID header and returns the ID.
func (s *Server) startReply(w http.ResponseWriter, d dialect) string {
	rid := newID("req_", 24)
	w.Header().Set(d.requestIDHeader(), rid)
	return rid
}

// readRequest reads a POST body for d, answering the failures itself; ok
// is false when it did.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request, d dialect, rid string) ([]byte, bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		d.writeError(w, http.StatusMethodNotAllowed, ErrorBody{Message: "use POST"}.withDefaults(http.StatusMethodNotAllowed, d.wire()), rid)
		return nil, false
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, false // the client went away
	}
	return raw, true
}

// refuse answers a request decode refused.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, d dialect, rid string, err error) {
	we := &wireError{status: http.StatusBadRequest, body: ErrorBody{Message: err.Error()}}
	errors.As(err, &we)
	s.logf("%s: %d %v", r.URL.Path, we.status, err)
	d.writeError(w, we.status, we.body.withDefaults(we.status, d.wire()), rid)
}

// serveTurn answers one model call with the scenario's reply.
func (s *Server) serveTurn(w http.ResponseWriter, r *http.Request, d dialect) {
	rid := s.startReply(w, d)
	raw, ok := s.readRequest(w, r, d, rid)
	if !ok {
		return
	}
	req, opts, err := d.decode(raw)
	if err != nil {
		s.refuse(w, r, d, rid, err)
		return
	}
	s.record(r.URL.Path, req, raw)
	c := s.eng.choose(req, r.Header.Get(SessionHeader), d.wire())
	rep := c.reply
	// A local server reads the whole prompt before it sends anything,
	// and refuses one over its window (local.go).
	sv := s.eng.sc.Server
	p := s.cache.promptOf(sv.counted(req), d.wire(), opts.marks)
	if wait := sv.prefill(p.tokens()); wait > 0 {
		if err := s.clock.Sleep(r.Context(), wait); err != nil {
			s.logf("%s %s: client gone while the prompt was read", r.URL.Path, describe(c))
			return
		}
	}
	if rep.Delay > 0 {
		if err := s.clock.Sleep(r.Context(), rep.Delay); err != nil {
			s.logf("%s %s: client gone during delay", r.URL.Path, describe(c))
			return
		}
	}
	if tokens := rep.promptTokens(p); rep.Status == 0 && sv.overflows(tokens, req.MaxTokens) {
		s.logf("%s stream=%t %s -> overflow of a %d-token window", r.URL.Path, opts.stream, describe(c), sv.Window)
		sv.writeOverflow(w, d, rid, tokens, req.MaxTokens)
		return
	}
	s.logf("%s stream=%t %s -> %s", r.URL.Path, opts.stream, describe(c), outcome(rep, d.wire()))
	switch {
	case rep.Status != 0:
		for k, v := range rep.header() {
			w.Header()[k] = v
		}
		d.writeError(w, rep.Status, rep.errorBody(d.wire()), rid)
		return
	case rep.StreamError != nil && !opts.stream:
		// Before a stream starts, the failure an error event reports
		// arrives as its status.
		body := rep.streamErrorBody(d.wire())
		d.writeError(w, streamErrorStatus(body), body, rid)
		return
	case rep.Drop && !opts.stream:
		drop(w)
		return
	}
	wr := &wireReply{
		id:        rid,
		requestID: rid,
		model:     cmp.Or(req.Model, "scripted"),
		created:   s.clock.Now().Unix(),
		stop:      rep.stop(),
	}
	for range max(opts.n, 1) {
		wr.choices = append(wr.choices, rep.content(d.toolID))
	}
	session := r.Header.Get(SessionHeader)
	wr.usage = rep.usage(p, func() cacheUse {
		if d.wire() == wireOpenAI {
			return s.cache.automatic(session, p)
		}
		return s.cache.explicit(session, p, minCacheable(req.Model))
	}, wr.content())
	for i := range wr.choices {
		// A reply that would pass the window stops at it.
		u := wr.usage
		var cut bool
		if wr.choices[i], cut = sv.atWindow(wr.choices[i], &u); cut {
			wr.stop = llm.MaxTokens
			if i == len(wr.choices)-1 {
				wr.usage = u
			}
		}
	}
	wr.usage.OutputTokens *= int64(len(wr.choices))
	if !opts.stream {
		d.writeReply(w, wr)
		return
	}
	end := streamEnd{cut: rep.Drop}
	if rep.StreamError != nil {
		body := rep.streamErrorBody(d.wire())
		end.errEvent = &body
	}
	d.writeStream(w, wr, opts, end)
	if rep.Drop {
		drop(w)
	}
}

// serveCountTokens answers Anthropic's token counting: the request's
// input tokens, estimated as a reply's usage is. It plays no turn.
func (s *Server) serveCountTokens(w http.ResponseWriter, r *http.Request) {
	d := anthropicDialect{}
	rid := s.startReply(w, d)
	raw, ok := s.readRequest(w, r, d, rid)
	if !ok {
		return
	}
	req, err := decodeCountTokens(raw)
	if err != nil {
		s.refuse(w, r, d, rid, err)
		return
	}
	s.logf("%s -> counted", r.URL.Path)
	writeJSON(w, http.StatusOK, map[string]int64{"input_tokens": s.cache.promptOf(req, d.wire(), nil).tokens()})
}

// serveModels answers a model listing, or one model when id is set, in the
// format of the API the client speaks.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request, id string) {
	d := dialectOf(r)
	rid := s.startReply(w, d)
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		d.writeError(w, http.StatusMethodNotAllowed, ErrorBody{Message: "use GET"}.withDefaults(http.StatusMethodNotAllowed, d.wire()), rid)
		return
	}
	ids := s.listed(d.wire())
	if id != "" && !slices.Contains(ids, id) {
		body := ErrorBody{Type: "not_found_error", Message: "model: " + id}
		if d.wire() == wireOpenAI {
			body = ErrorBody{Type: "invalid_request_error", Code: "model_not_found",
				Message: "The model `" + id + "` does not exist or you do not have access to it."}
		}
		d.writeError(w, http.StatusNotFound, body, rid)
		return
	}
	s.logf("%s -> %d models", r.URL.Path, len(ids))
	d.writeModels(w, ids, id, s.clock.Now(), rid)
}

// listed is the models /v1/models lists for a wire: ServerConfig.Models,
// else "scripted" and the model table's models of that provider.
func (s *Server) listed(w wire) []string {
	if len(s.models) > 0 {
		return s.models
	}
	ids := []string{"scripted"}
	for _, m := range models.Default().Models() {
		if m.Provider == string(w) && m.Name != models.Wildcard {
			ids = append(ids, m.Name)
		}
	}
	return ids
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
func outcome(r *Reply, w wire) string {
	switch {
	case r.Status != 0:
		return fmt.Sprintf("status %d %s", r.Status, r.errorBody(w).Type)
	case r.Drop:
		return "drop"
	case r.StreamError != nil:
		return "stream_error " + r.streamErrorBody(w).Type
	case r.Empty:
		return "empty"
	}
	s := fmt.Sprintf("%s text=%dB", r.stop(), len(r.Text))
	for _, tc := range r.ToolCalls {
		s += " tool=" + tc.Name
	}
	return s
}
