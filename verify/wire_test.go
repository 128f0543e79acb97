package verify_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/verify"
)

// wireJudge is a scenario whose judge reads what it is shown: it fails a
// list that stops short of the fifth step.
const wireJudge = `
turns:
  - cases:
      - when: {in: last, matches: '(?s)all 5 steps.*</task-', not_contains: "\n5. "}
        text: "FAIL\nonly 3 of the 5 steps"
      - text: "PASS\nall five steps are there"
`

// TestJudgeOverTheWire sends the judge's call through the real providers to
// the scripted HTTP simulator, streaming and not, and reads the request as
// it crossed the wire: one user message holding the result, and none of the
// worker's conversation.
func TestJudgeOverTheWire(t *testing.T) {
	sc, err := scripted.Parse([]byte(wireJudge))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{
		OnRequest: func(_ string, _ *llm.Request, raw []byte) {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Errorf("request body is not JSON: %v", err)
			}
			mu.Lock()
			bodies = append(bodies, m)
			mu.Unlock()
		},
	}))
	defer srv.Close()

	dir := t.TempDir()
	in := verify.Input{
		Task:    "extract the install steps from the README into docs/install.md — must include all 5 steps",
		Answer:  "Done: docs/install.md holds the install steps.",
		Dir:     dir,
		Changed: []string{"docs/install.md"},
	}
	writeFile(t, dir, "docs/install.md", "1. install Go\n2. clone\n3. build\n")

	providers := map[string]func(stream bool) (llm.Model, error){
		"anthropic": func(stream bool) (llm.Model, error) {
			return anthropic.New(anthropic.Config{BaseURL: srv.URL, Stream: stream})
		},
		"openai": func(stream bool) (llm.Model, error) {
			return openai.New(openai.Config{BaseURL: srv.URL + "/v1", Stream: stream})
		},
	}
	for name, newModel := range providers {
		for _, stream := range []bool{false, true} {
			t.Run(name+map[bool]string{false: " answers", true: " streams"}[stream]+" the judge's verdict", func(t *testing.T) {
				m, err := newModel(stream)
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				bodies = nil
				mu.Unlock()
				v := &verify.Verifier{
					Rules: []verify.Rule{mustParse(t, "exists:docs/install.md")},
					Judge: &verify.Judge{Model: m, ModelName: "judge-1"},
				}
				got, usage, err := v.Verify(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				if got.Pass || got.Check != "judge" || got.Reason != "only 3 of the 5 steps" {
					t.Errorf("verdict = %+v, want the judge's FAIL", got)
				}
				if usage.Total() == 0 {
					t.Error("the judge call's usage was lost")
				}
				mu.Lock()
				defer mu.Unlock()
				if len(bodies) != 1 {
					t.Fatalf("%d requests crossed the wire, want 1", len(bodies))
				}
				checkJudgeBody(t, name, bodies[0])
			})
		}
	}
}

// checkJudgeBody reads a judge request as the provider sent it.
func checkJudgeBody(t *testing.T, provider string, body map[string]any) {
	t.Helper()
	if body["model"] != "judge-1" {
		t.Errorf("model = %v, want judge-1", body["model"])
	}
	if body["max_tokens"] != float64(verify.DefaultJudgeMaxTokens) {
		t.Errorf("max_tokens = %v, want %d", body["max_tokens"], verify.DefaultJudgeMaxTokens)
	}
	if _, ok := body["tools"]; ok {
		t.Error("the judge was offered tools")
	}
	msgs, _ := body["messages"].([]any)
	var user []map[string]any
	for _, m := range msgs {
		m := m.(map[string]any)
		switch m["role"] {
		case "user":
			user = append(user, m)
		case "system":
			if provider != "openai" {
				t.Errorf("a system message in the %s messages", provider)
			}
		default:
			t.Errorf("a %v message reached the judge: the worker's history leaked", m["role"])
		}
	}
	if len(user) != 1 {
		t.Fatalf("%d user messages, want exactly 1", len(user))
	}
	raw, _ := json.Marshal(user[0]["content"])
	text := string(raw)
	for _, want := range []string{"must include all 5 steps", "Done: docs/install.md holds", "3. build"} {
		if !strings.Contains(text, want) {
			t.Errorf("the judge's message lacks %q: %s", want, text)
		}
	}
	for _, leak := range []string{"tool_use", "tool_result", "transcript-"} {
		if strings.Contains(text, leak) {
			t.Errorf("the judge's message holds %q: %s", leak, text)
		}
	}
}
