package openai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// A client for a local OpenAI-compatible server (no key needed), against
// a simulated one whose account is out of quota: a 429 that must not be
// retried.
func Example() {
	sc, _ := scripted.Parse([]byte(`
turns:
  - status: 429
    error: {type: insufficient_quota, code: insufficient_quota, message: "You exceeded your current quota."}
`))
	srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{}))
	defer srv.Close()

	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "llama3"})
	if err != nil {
		panic(err)
	}
	_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("Say hello.")}})
	var e *llm.Error
	if errors.As(err, &e) {
		fmt.Println(e.Class, e.Status, e.Type, e.Class.Retryable())
	}
	// Output:
	// quota 429 insufficient_quota false
}
