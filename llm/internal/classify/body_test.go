package classify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseBodyReadsEveryProvidersShape(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Detail
	}{
		{"Anthropic's envelope", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			Detail{Type: "overloaded_error", Message: "Overloaded"}},
		{"OpenAI's envelope with a code", `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			Detail{Type: "insufficient_quota", Code: "insufficient_quota", Message: "You exceeded your current quota"}},
		{"vLLM's top-level message and numeric code", `{"object":"error","message":"bad","type":"BadRequestError","code":400}`,
			Detail{Type: "BadRequestError", Message: "bad"}},
		{"vLLM's nested numeric code", `{"error":{"message":"bad","type":"BadRequestError","code":400}}`,
			Detail{Type: "BadRequestError", Code: "400", Message: "bad"}},
		{"Ollama's plain error string", `{"error":"model not found"}`, Detail{Message: "model not found"}},
		{"a body that is not JSON becomes the message", "  <html>502</html>\n", Detail{Message: "<html>502</html>"}},
		{"an empty body says nothing", "", Detail{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ParseBody([]byte(tt.body))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetailNamePrefersAWordCodeOverTheType(t *testing.T) {
	tests := []struct {
		d    Detail
		want string
	}{
		{Detail{Type: "invalid_request_error", Code: "invalid_api_key"}, "invalid_api_key"},
		{Detail{Type: "BadRequestError", Code: "400"}, "BadRequestError"},
		{Detail{Type: "overloaded_error"}, "overloaded_error"},
	}
	for _, tt := range tests {
		if got := tt.d.Name(); got != tt.want {
			t.Errorf("%+v.Name() = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestParseBodyShortensLongMessages(t *testing.T) {
	long := strings.Repeat("é", maxMessage) // two bytes a rune
	got := ParseBody([]byte(long)).Message
	if len(got) > maxMessage+len("…") {
		t.Errorf("message is %d bytes, want at most %d", len(got), maxMessage+len("…"))
	}
	if !strings.HasSuffix(got, "é…") {
		t.Errorf("message was not cut on a rune boundary: %q", got[len(got)-8:])
	}
}

func TestStreamStatusMapsTypesToTheirStatus(t *testing.T) {
	tests := []struct {
		d    Detail
		want int
	}{
		{Detail{Type: "overloaded_error"}, 529},
		{Detail{Type: "rate_limit_error"}, 429},
		{Detail{Type: "requests", Code: "rate_limit_exceeded"}, 429},
		{Detail{Type: "insufficient_quota"}, 429},
		{Detail{Type: "server_error"}, 500},
		{Detail{Type: "BadRequestError", Code: "400"}, 400},
		{Detail{Type: "something_new"}, 500},
	}
	for _, tt := range tests {
		if got := StreamStatus(tt.d); got != tt.want {
			t.Errorf("StreamStatus(%+v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}
