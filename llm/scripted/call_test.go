package scripted_test

import (
	"net/http"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

func TestRouteOfReadsTheEndOfThePath(t *testing.T) {
	anth := http.Header{"Anthropic-Version": {"2023-06-01"}}
	for _, c := range []struct {
		path string
		h    http.Header
		want scripted.Route
	}{
		{"/v1/messages", nil, scripted.Route{Wire: "anthropic", Kind: "call"}},
		{"/v1/messages/count_tokens", nil, scripted.Route{Wire: "anthropic", Kind: "count_tokens"}},
		{"/api/v1/chat/completions", nil, scripted.Route{Wire: "openai", Kind: "call"}},
		{"/chat/completions", nil, scripted.Route{Wire: "openai", Kind: "call"}},
		{"/v1/models", anth, scripted.Route{Wire: "anthropic", Kind: "models"}},
		{"/v1/models/gpt-4.1", nil, scripted.Route{Wire: "openai", Kind: "models"}},
		{"/v1/embeddings", nil, scripted.Route{}},
	} {
		if got := scripted.RouteOf(c.path, c.h); got != c.want {
			t.Errorf("RouteOf(%s) = %+v, want %+v", c.path, got, c.want)
		}
	}
}

// TestReadCallTakesFieldsTheSimulatorRefuses: traffic to a real provider
// may carry fields the simulator does not know; ReadCall reads it all the
// same, position and fingerprint as the server's.
func TestReadCallTakesFieldsTheSimulatorRefuses(t *testing.T) {
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":10,"stream":true,"brand_new_field":1,"system":"S",
		"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`)
	c, err := scripted.ReadCall(scripted.Route{Wire: "anthropic", Kind: "call"}, body)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Stream || c.Position() != 1 || c.Request.System != "S" || c.Request.Model != "claude-sonnet-4-5" {
		t.Errorf("call = %+v, position %d", c, c.Position())
	}
	other, _ := scripted.ReadCall(scripted.Route{Wire: "anthropic", Kind: "call"}, []byte(`{"model":"x","max_tokens":10,"system":"S",
		"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`))
	if other.Fingerprint() != c.Fingerprint() {
		t.Error("the same conversation fingerprints apart")
	}
	if _, err := scripted.ReadCall(scripted.Route{Wire: "openai", Kind: "models"}, body); err == nil {
		t.Error("a model listing read as a call")
	}
}
