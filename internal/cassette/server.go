package cassette

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// maxBody caps a request body, as the simulator does.
const maxBody = 32 << 20

// ServerConfig configures a Server. The zero value is ready to use.
type ServerConfig struct {
	// Log, when set, gets one line per request: which recorded exchange
	// answered it, and how it was matched. Default: no log.
	Log io.Writer
}

// Server plays a cassette back over HTTP. Requests are matched as a
// scenario matches them (llm/scripted):
//
//   - first by the same conversation: the same route, the same
//     conversation hash (system prompt and every message) and the same
//     session; the n-th such request gets the n-th such recorded
//     exchange, so that a retried call gets the next recorded attempt,
//     and the last one repeats;
//   - failing that, by the same place in a conversation: the same route,
//     position and system prompt and the same session, the n-th such
//     request the n-th such exchange; this plays back a conversation
//     whose text differs where it cannot help differing (a judge's
//     random delimiters), and the log says it was matched so;
//   - a model listing, by its path.
//
// A request nothing matches gets a 400 in its wire's format that says so:
// the run went another way than the recorded one. A replay sends each
// reply at once, stream events one by one as recorded (each flushed), and
// ends it as it ended: whole, reset, or stalled until the client gives up.
// It is safe for concurrent use.
type Server struct {
	log   io.Writer
	logMu sync.Mutex

	byConversation map[convKey][]int
	byPlace        map[placeKey][]int
	exchanges      []Exchange

	mu     sync.Mutex
	played map[any]int
}

var _ http.Handler = (*Server)(nil)

type convKey struct {
	method, wire, route, path, conversation, session string
}

type placeKey struct {
	method, wire, route, path, system, session string
	position                                   int
}

// NewServer returns a Server playing c.
func NewServer(c *Cassette, cfg ServerConfig) *Server {
	s := &Server{
		log:            cfg.Log,
		byConversation: map[convKey][]int{},
		byPlace:        map[placeKey][]int{},
		exchanges:      c.Exchanges,
		played:         map[any]int{},
	}
	// The exchanges are in the order their replies ended; the attempts
	// of one conversation are played in the order they were asked.
	order := make([]int, len(c.Exchanges))
	for i := range order {
		order[i] = i
	}
	sortByN(order, c.Exchanges)
	for _, i := range order {
		d := c.Exchanges[i].Request
		ck := conversationKey(d)
		s.byConversation[ck] = append(s.byConversation[ck], i)
		pk := placeKeyOf(d)
		s.byPlace[pk] = append(s.byPlace[pk], i)
	}
	return s
}

func sortByN(order []int, ex []Exchange) {
	// Insertion sort: recordings are nearly in order already.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && ex[order[j]].N < ex[order[j-1]].N; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
}

// conversationKey keys the first match. A model listing is keyed by its
// path; a call's path is left out, so that a client whose base URL has or
// lacks /v1 still finds its calls.
func conversationKey(d Request) convKey {
	k := convKey{method: d.Method, wire: d.Wire, route: d.Route, conversation: d.Conversation, session: d.Session}
	if d.Route != "call" && d.Route != "count_tokens" {
		k.path = d.Path
	}
	return k
}

func placeKeyOf(d Request) placeKey {
	k := placeKey{method: d.Method, wire: d.Wire, route: d.Route, system: d.System, session: d.Session, position: d.Position}
	if d.Route != "call" && d.Route != "count_tokens" {
		k.path = d.Path
	}
	return k
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return // the client went away
	}
	d := Digest(r, body)
	i, how := s.match(d)
	if i < 0 {
		s.logf("%s %s: no recorded exchange matches (%s)", r.Method, r.URL.Path, describe(d))
		wire := d.Wire
		if wire == "" {
			wire = "anthropic"
		}
		scripted.WriteError(w, wire, http.StatusBadRequest, scripted.ErrorBody{Type: "invalid_request_error",
			Message: "cassette: no recorded exchange matches this request (" + describe(d) +
				"): the client went another way than the recorded session"})
		return
	}
	ex := &s.exchanges[i]
	s.logf("%s %s stream=%t -> exchange n=%d (%s)%s", r.Method, r.URL.Path, d.Stream, ex.N, how, endNote(ex))
	play(w, r, &ex.Response)
}

// match finds the exchange for d and says how it matched; -1 for none.
func (s *Server) match(d Request) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.Conversation != "" || (d.Route != "call" && d.Route != "count_tokens") {
		k := conversationKey(d)
		if list := s.byConversation[k]; len(list) > 0 {
			n := s.played[k]
			s.played[k] = n + 1
			return list[min(n, len(list)-1)], fmt.Sprintf("same conversation, attempt %d", n+1)
		}
	}
	if d.Route == "call" || d.Route == "count_tokens" {
		k := placeKeyOf(d)
		if list := s.byPlace[k]; len(list) > 0 {
			n := s.played[k]
			s.played[k] = n + 1
			return list[min(n, len(list)-1)], fmt.Sprintf("same position %d and system prompt, %d of %d", d.Position, min(n+1, len(list)), len(list))
		}
	}
	return -1, ""
}

func describe(d Request) string {
	if d.Route == "call" || d.Route == "count_tokens" {
		return fmt.Sprintf("%s %s at position %d, conversation %s", d.Wire, d.Route, d.Position, short(d.Conversation))
	}
	return d.Method + " " + d.Path
}

func short(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

func endNote(ex *Exchange) string {
	var parts []string
	if ex.Fault != "" {
		parts = append(parts, "fault "+ex.Fault)
	}
	if ex.Response.End != "" {
		parts = append(parts, "ends "+ex.Response.End)
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

// play sends a recorded reply.
func play(w http.ResponseWriter, r *http.Request, resp *Response) {
	rc := http.NewResponseController(w)
	if resp.Status == 0 {
		// Nothing was sent: the connection was reset, or the reply
		// stalled before its headers.
		if resp.End == EndStall {
			<-r.Context().Done()
			return
		}
		reset(w)
		return
	}
	for k, vs := range resp.Header {
		w.Header()[k] = append([]string(nil), vs...)
	}
	w.WriteHeader(resp.Status)
	if len(resp.Events) > 0 {
		for _, e := range resp.Events {
			if _, err := io.WriteString(w, e.Data); err != nil {
				return
			}
			rc.Flush() //nolint:errcheck // a client gone is seen at the next write
		}
	} else if b := resp.body(); len(b) > 0 {
		w.Write(b) //nolint:errcheck // a client gone is nothing to answer
	}
	switch resp.End {
	case EndReset:
		rc.Flush() //nolint:errcheck // the reset follows either way
		reset(w)
	case EndStall:
		rc.Flush() //nolint:errcheck // the client waits either way
		<-r.Context().Done()
	}
}

// reset closes the connection without finishing the reply, as a network
// failure would.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 cannot be hijacked; aborting the handler resets the
		// stream.
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

func (s *Server) logf(format string, args ...any) {
	if s.log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, "cassette: "+format+"\n", args...)
}
