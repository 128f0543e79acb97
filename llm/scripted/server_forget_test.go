package scripted_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// Regression: a long-running `sim serve` kept every request it was sent.
func TestServerForgetsRequestsWhenTold(t *testing.T) {
	sc, err := scripted.Parse([]byte(`{loop: true, turns: [{text: hi}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, forget := range []bool{false, true} {
		srv := scripted.NewServer(sc, scripted.ServerConfig{ForgetRequests: forget})
		body := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hello"}]}`
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body)))
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		want := 1
		if forget {
			want = 0
		}
		if got := len(srv.Requests()); got != want {
			t.Errorf("ForgetRequests=%v: kept %d requests, want %d", forget, got, want)
		}
	}
}
