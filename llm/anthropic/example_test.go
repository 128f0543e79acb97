package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// A streaming client against a simulated API that is overloaded once.
// The provider does not retry: it reports the failure's class, and the
// caller (in nightshift, the retry package) decides.
func Example() {
	sc, _ := scripted.Parse([]byte(`
turns:
  - attempts:
      - {status: 529, headers: {retry-after: "3"}}
      - text: Hello.
`))
	srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{}))
	defer srv.Close()

	m, err := anthropic.New(anthropic.Config{APIKey: "sk-ant-example", BaseURL: srv.URL, Stream: true})
	if err != nil {
		panic(err)
	}
	req := &llm.Request{Messages: []llm.Message{llm.UserText("Say hello.")}}

	_, err = m.Generate(context.Background(), req)
	var e *llm.Error
	if errors.As(err, &e) {
		fmt.Println(e.Class, e.Status, e.Class.Retryable(), e.RetryAfter)
	}
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.StopReason, resp.Message().Text())
	// Output:
	// overloaded 529 true 3s
	// end_turn Hello.
}
