package scripted

import (
	"cmp"
	"context"
	"io"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/classify"
)

// Config configures a Model. The zero value is ready to use.
type Config struct {
	// Clock times the replies' delays and the prompt cache's lifetimes
	// and reads Retry-After dates; default clock.Real{}.
	Clock clock.Clock
	// Session separates identical conversations in the attempt counters
	// and names the prompt cache the calls share (as the server's
	// X-Sim-Session header does); default "".
	Session string
}

// Model plays a scenario in process. It is safe for concurrent use:
// conversations follow the scenario independently, by their position.
type Model struct {
	eng     *engine
	cache   *promptCache
	clock   clock.Clock
	session string
	outage  *outage
}

var _ llm.Model = (*Model)(nil)

// New returns a Model playing sc. A scenario that does not validate makes
// every call fail with a bad-request error naming the problem.
func New(sc *Scenario, cfg Config) *Model {
	clk := cmp.Or[clock.Clock](cfg.Clock, clock.Real{})
	return &Model{
		eng:     newEngine(sc),
		cache:   newPromptCache(clk),
		clock:   clk,
		session: cfg.Session,
		outage:  newOutage(sc.Down, clk),
	}
}

// Generate answers req with the scenario's reply for it. Faults come back
// as *llm.Error with Provider "scripted": an error status is classified by
// llm.ClassifyStatus, a drop is Class Connection, and a context that ends
// (before or during a delay) gives Class Canceled, or Timeout for a
// deadline, wrapping ctx.Err().
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err)
	}
	if down, _ := m.outage.down(); down {
		return nil, m.outage.downError()
	}
	c := m.eng.choose(req, m.session, wireNone)
	r := c.reply
	sv := m.eng.sc.Server
	p := m.cache.promptOf(sv.counted(req), wireNone, headAndRolling(req))
	if wait := sv.prefill(p.tokens()); wait > 0 {
		if err := m.clock.Sleep(ctx, wait); err != nil {
			return nil, ctxError(err)
		}
	}
	if r.Delay > 0 {
		if err := m.clock.Sleep(ctx, r.Delay); err != nil {
			return nil, ctxError(err)
		}
	}
	if tokens := r.promptTokens(p); r.Status == 0 && sv.overflows(tokens, req.MaxTokens) {
		return nil, sv.overflowError(tokens, req.MaxTokens)
	}
	switch {
	case r.Status != 0:
		return nil, m.statusError(r)
	case r.Drop:
		return nil, &llm.Error{
			Provider: "scripted",
			Class:    llm.Connection,
			Message:  "connection dropped mid-reply (scripted drop)",
			Err:      io.ErrUnexpectedEOF,
		}
	case r.StreamError != nil:
		// What a streaming provider reports for an error event: no
		// status (the stream had begun with 200), classified by type.
		e := r.streamErrorBody(wireNone)
		d := classify.Detail{Type: e.Type, Code: e.Code, Message: e.Message}
		return nil, llm.OverflowError(&llm.Error{
			Provider: "scripted",
			Class:    llm.ClassifyStatus(classify.StreamStatus(d), e.Type+" "+e.Code, e.Message),
			Type:     d.Name(),
			Message:  "error event mid-stream: " + e.Message,
		})
	}
	resp := r.response(req.Model, p, func() cacheUse { return m.cache.explicit(m.session, p, minCacheable(req.Model)) }, r.content(localID))
	if content, cut := sv.atWindow(resp.Content, &resp.Usage); cut {
		resp.Content, resp.StopReason = content, llm.MaxTokens
	}
	return resp, nil
}

func (m *Model) statusError(r *Reply) *llm.Error {
	body := r.errorBody(wireNone)
	h := r.header()
	return llm.OverflowError(&llm.Error{
		Provider:   "scripted",
		Class:      llm.ClassifyStatus(r.Status, body.Type, body.Message),
		Status:     r.Status,
		Type:       body.Type,
		Message:    body.Message,
		RetryAfter: llm.RetryAfter(h, m.clock.Now()),
		Header:     h,
	})
}

// ctxError classifies a context's end the way llm.ClassOf does: Canceled
// for a cancellation, Timeout for a passed deadline.
func ctxError(err error) *llm.Error {
	return &llm.Error{Provider: "scripted", Class: llm.ClassOf(err), Err: err}
}
