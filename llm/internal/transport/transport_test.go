package transport_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// Regression (issue 13): every run built its provider client with a
// transport of its own, so a batch kept a connection (and its buffers)
// per task: 3,000 tasks held 3,000 sockets. Clients built without an
// HTTPClient now share one, and runs one after another reuse one
// connection.
func TestProviderClientsShareConnections(t *testing.T) {
	sc, err := scripted.Parse([]byte("loop: true\nturns:\n  - text: ok\n"))
	if err != nil {
		t.Fatal(err)
	}
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(scripted.NewServer(sc, scripted.ServerConfig{}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	for _, wire := range []string{"anthropic", "openai"} {
		t.Run(wire, func(t *testing.T) {
			before := opened.Load()
			for i := range 20 { // twenty runs, each building its own client
				var m llm.Model
				if wire == "anthropic" {
					m, err = anthropic.New(anthropic.Config{APIKey: "k", BaseURL: srv.URL, Model: "sim"})
				} else {
					m, err = openai.New(openai.Config{APIKey: "k", BaseURL: srv.URL + "/v1", Model: "sim"})
				}
				if err != nil {
					t.Fatal(err)
				}
				if _, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}); err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
			}
			if got := opened.Load() - before; got > 1 {
				t.Errorf("twenty runs one after another opened %d connections, want at most 1", got)
			}
		})
	}
}
