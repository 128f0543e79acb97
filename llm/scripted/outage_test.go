package scripted

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
)

func outageScenario(t *testing.T, down string) *Scenario {
	t.Helper()
	sc, err := Parse([]byte(down + "\nturns:\n  - text: done\nloop: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestAnOutageRefusesEveryCallForItsSpan(t *testing.T) {
	start := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	req := &llm.Request{Model: "m", MaxTokens: 10, Messages: []llm.Message{llm.UserText("hi")}}
	t.Run("in process, as connection failures on the injected clock", func(t *testing.T) {
		c := clock.NewFake(start)
		m := New(outageScenario(t, "down: {after: 2, for: 30s}"), Config{Clock: c})
		var classes []llm.Class
		for range 5 {
			_, err := m.Generate(context.Background(), req)
			classes = append(classes, llm.ClassOf(err))
			c.Advance(10 * time.Second)
		}
		// Calls at 0s and 10s answered; 20s, 30s, 40s in the outage that
		// began at 20s; at 50s it is over.
		_, err := m.Generate(context.Background(), req)
		classes = append(classes, llm.ClassOf(err))
		want := []llm.Class{"", "", llm.Connection, llm.Connection, llm.Connection, ""}
		if strings.Join(classesText(classes), ",") != strings.Join(classesText(want), ",") {
			t.Errorf("classes %v, want %v", classes, want)
		}
	})
	t.Run("over HTTP, a status in the wire's format or a reset connection", func(t *testing.T) {
		for _, tc := range []struct {
			down   string
			status int
		}{{"down: {after: 1, for: 1m, status: 529}", 529}, {"down: {after: 1, for: 1m}", 0}} {
			c := clock.NewFake(start)
			srv := NewServer(outageScenario(t, tc.down), ServerConfig{Clock: c})
			hs := httptest.NewServer(srv)
			post := func() (int, error) {
				resp, err := http.Post(hs.URL+"/v1/messages", "application/json",
					strings.NewReader(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`))
				if err != nil {
					return 0, err
				}
				resp.Body.Close()
				return resp.StatusCode, nil
			}
			if st, err := post(); st != 200 || err != nil {
				t.Fatalf("%s: first call %d, %v; want 200", tc.down, st, err)
			}
			st, err := post()
			switch {
			case tc.status != 0 && (st != tc.status || err != nil):
				t.Errorf("%s: during the outage %d, %v; want %d", tc.down, st, err, tc.status)
			case tc.status == 0 && err == nil:
				t.Errorf("%s: during the outage status %d; want a failed connection", tc.down, st)
			}
			c.Advance(time.Minute)
			if st, err := post(); st != 200 || err != nil {
				t.Errorf("%s: after the outage %d, %v; want 200", tc.down, st, err)
			}
			if got := srv.Refused(); got != 1 {
				t.Errorf("%s: refused %d, want 1", tc.down, got)
			}
			hs.Close()
		}
	})
	t.Run("a scenario's outage is checked", func(t *testing.T) {
		for _, bad := range []string{"down: {after: 1}", "down: {for: 1s, status: 429}", "down: {after: -1, for: 1s}"} {
			if _, err := Parse([]byte(bad + "\nturns:\n  - text: x\n")); err == nil || !strings.Contains(err.Error(), "down:") {
				t.Errorf("%s: %v, want an error naming down", bad, err)
			}
		}
	})
}

func classesText(cs []llm.Class) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}
