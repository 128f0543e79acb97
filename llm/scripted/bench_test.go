package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

const benchScenario = `
loop: true
scripts:
  - name: judge
    when: {contains: "<final_answer>"}
    turns: [{cases: [{when: {matches: 'steps: [0-4]\b'}, text: FAIL}, {text: PASS}]}]
  - name: worker
    turns:
      - tool_calls: [{name: read_file, input: {path: README.md}}, {name: list_dir, input: {path: .}}]
      - text: "A reply of moderate length, to be streamed in several deltas like a real one."
`

// benchConversation is a 20-step conversation: the request an agent late
// in a run sends.
func benchConversation() *llm.Request {
	req := conversation("Summarise every note in notes/ into notes/summary.md", 20)
	req.Tools = []llm.ToolSpec{{Name: "read_file", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	return req
}

func BenchmarkModelGenerate(b *testing.B) {
	sc, err := Parse([]byte(benchScenario))
	if err != nil {
		b.Fatal(err)
	}
	m := New(sc, Config{})
	req := benchConversation()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServer measures one HTTP round trip on loopback per wire
// format and mode, reading the whole reply.
func BenchmarkServer(b *testing.B) {
	sc, err := Parse([]byte(benchScenario))
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(NewServer(sc, ServerConfig{}))
	defer hs.Close()
	req := benchConversation()
	anthropicBody := func(stream bool) []byte {
		msgs := make([]map[string]any, 0, len(req.Messages))
		for _, m := range req.Messages {
			msgs = append(msgs, map[string]any{"role": m.Role, "content": m.Text()})
		}
		body, _ := json.Marshal(map[string]any{"model": "m", "max_tokens": 1024, "system": req.System, "messages": msgs, "stream": stream})
		return body
	}
	openaiBody := func(stream bool) []byte {
		msgs := []map[string]any{{"role": "system", "content": req.System}}
		for _, m := range req.Messages {
			msgs = append(msgs, map[string]any{"role": m.Role, "content": m.Text()})
		}
		body, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs, "stream": stream})
		return body
	}
	cases := []struct {
		name, path string
		body       []byte
	}{
		{"anthropic/json", "/v1/messages", anthropicBody(false)},
		{"anthropic/stream", "/v1/messages", anthropicBody(true)},
		{"openai/json", "/v1/chat/completions", openaiBody(false)},
		{"openai/stream", "/v1/chat/completions", openaiBody(true)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := http.Post(hs.URL+c.path, "application/json", bytes.NewReader(c.body))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}
