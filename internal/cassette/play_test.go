package cassette

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// hijacker is a ResponseWriter that records whether the connection was
// taken to be reset.
type hijacker struct {
	*httptest.ResponseRecorder
	hijacked bool
}

func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h.hijacked = true
	a, b := net.Pipe()
	b.Close()
	return a, nil, nil
}

// TestAStallBeforeTheHeadersIsReplayedAsAStall: a recorded stall that
// sent nothing waits for the client to give up, as it did; it was played
// as a reset, which fails the call at once.
func TestAStallBeforeTheHeadersIsReplayedAsAStall(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the client has given up: the stall ends at once
	r := httptest.NewRequestWithContext(ctx, "POST", "/v1/messages", nil)
	for _, c := range []struct {
		resp  Response
		reset bool
	}{
		{Response{End: EndStall}, false},
		{Response{End: EndReset}, true},
		{Response{Status: http.StatusOK, Body: "{}", End: EndStall}, false},
		{Response{Status: http.StatusOK, Body: "{", End: EndReset}, true},
	} {
		w := &hijacker{ResponseRecorder: httptest.NewRecorder()}
		play(w, r, &c.resp)
		if w.hijacked != c.reset {
			t.Errorf("%+v: reset %t, want %t", c.resp, w.hijacked, c.reset)
		}
	}
}
