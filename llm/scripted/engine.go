package scripted

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync"

	"github.com/nightshift-dev/nightshift/llm"
)

// engine picks the reply for a request. It is the one selection logic that
// both transports (the in-process Model and the HTTP Server) share.
type engine struct {
	sc *Scenario
	// invalid is the validation error of a Scenario built in Go that does
	// not validate; every request then gets it as a bad request.
	invalid error

	mu       sync.Mutex
	attempts map[attemptKey]int
}

// maxAttemptKeys bounds the attempt counters of one engine.
const maxAttemptKeys = 1 << 18

// attemptKey identifies "the same call made again": the same wire, script,
// position and case, the same conversation content, the same session.
type attemptKey struct {
	// wire keeps the two wire formats apart: the same conversation sent
	// as Anthropic and as OpenAI requests is two clients, not a retry.
	wire     wire
	script   int
	position int
	kase     int
	content  [sha256.Size]byte
	session  string
}

// choice is the engine's decision for one request.
type choice struct {
	reply    *Reply
	script   string
	position int
	// attempt is 1 for the first call with this key, 2 for the next, ...
	attempt int
}

func newEngine(sc *Scenario) *engine {
	e := &engine{sc: sc, attempts: make(map[attemptKey]int)}
	if !sc.validated {
		e.invalid = sc.Validate()
	}
	return e
}

// choose selects the reply for req. Failures of the scenario itself (no
// script matches, exhausted, invalid) come back as a 400 reply, so both
// transports report them the way a provider reports a bad request.
func (e *engine) choose(req *llm.Request, session string, w wire) choice {
	if e.invalid != nil {
		return badRequest("", 0, e.invalid.Error())
	}
	t := &texts{req: req}
	pos := position(req)
	si := -1
	for i := range e.sc.Scripts {
		if e.sc.Scripts[i].When.matches(t) {
			si = i
			break
		}
	}
	if si < 0 {
		return badRequest("", pos, "scenario: no script matches the request")
	}
	s := &e.sc.Scripts[si]
	ti := pos
	if ti >= len(s.Turns) {
		if !e.sc.Loop {
			return badRequest(s.Name, pos, fmt.Sprintf("scenario exhausted: script %s has no turn at position %d", s.Name, pos))
		}
		ti = len(s.Turns) - 1
	}
	turn := &s.Turns[ti]
	inline, attempts, ci := &turn.Reply, turn.Attempts, -1
	if len(turn.Cases) > 0 {
		for i := range turn.Cases {
			if turn.Cases[i].When.matches(t) {
				ci = i
				break
			}
		}
		if ci < 0 {
			return badRequest(s.Name, pos, fmt.Sprintf("scenario: script %s turn at position %d: no case matches the request", s.Name, pos))
		}
		inline, attempts = &turn.Cases[ci].Reply, turn.Cases[ci].Attempts
	}
	key := attemptKey{wire: w, script: si, position: pos, kase: ci, content: fingerprint(req), session: session}
	e.mu.Lock()
	if len(e.attempts) >= maxAttemptKeys {
		// Bound the memory of a long-running simulator: conversations
		// still in flight start their attempts over, which only matters
		// to a turn with several attempts.
		clear(e.attempts)
	}
	e.attempts[key]++
	n := e.attempts[key]
	e.mu.Unlock()
	c := choice{script: s.Name, position: pos, attempt: n, reply: inline}
	if len(attempts) > 0 {
		c.reply = &attempts[min(n, len(attempts))-1]
	}
	return c
}

func badRequest(script string, pos int, msg string) choice {
	return choice{
		script:   script,
		position: pos,
		attempt:  1,
		reply: &Reply{
			Status: http.StatusBadRequest,
			Error:  &ErrorBody{Type: "invalid_request_error", Message: msg},
		},
	}
}
