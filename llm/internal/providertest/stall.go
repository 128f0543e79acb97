package providertest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/retry"
)

// StallRetried checks that a streaming call whose server sends first (the
// opening of a stream, in the provider's wire format) and then nothing is
// cancelled once the simulated clock passes a stall time of two minutes,
// fails as a Timeout of provider, and that the retry (the scripted
// simulator, whole) answers. newClient builds the provider's streaming
// client on baseURL with that stall time and clock. Both providers run
// it from their own tests: the stall watch is shared (llm/internal/stall)
// and so is what it must do.
func StallRetried(t *testing.T, provider, first string, newClient func(baseURL string, c clock.Clock) (llm.Model, error)) {
	t.Helper()
	sc, err := scripted.Parse([]byte("turns: [{text: recovered}]"))
	if err != nil {
		t.Fatal(err)
	}
	sim := scripted.NewServer(sc, scripted.ServerConfig{})
	stalled := make(chan struct{})
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > 1 {
			sim.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, first)
		w.(http.Flusher).Flush()
		close(stalled)
		<-r.Context().Done() // a dead socket: nothing more, ever
	}))
	defer srv.Close()
	fc := clock.NewFake(time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC))
	c, err := newClient(srv.URL, fc)
	if err != nil {
		t.Fatal(err)
	}
	var retries []retry.Attempt
	m := retry.Wrap(c, retry.Policy{Clock: fc, OnRetry: func(a retry.Attempt) { retries = append(retries, a) }})
	go func() {
		<-stalled
		fc.Advance(2*time.Minute + time.Second)
	}()
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if resp.Message().Text() != "recovered" || calls.Load() != 2 {
		t.Errorf("reply %q after %d calls, want the retry's", resp.Message().Text(), calls.Load())
	}
	if len(retries) != 1 || retries[0].Class != llm.Timeout {
		t.Fatalf("retries %+v, want one timeout", retries)
	}
	if e := retries[0].Err.(*llm.Error); e.Provider != provider || e.Message != "the stream sent nothing for 2m0s: cancelled as stalled" {
		t.Errorf("the stall's error: %+v", e)
	}
}
