package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// Wire is a wire format the simulator speaks.
type Wire string

const (
	// Anthropic is the Messages API (POST /v1/messages).
	Anthropic Wire = "anthropic"
	// OpenAI is the Chat Completions API (POST /v1/chat/completions),
	// which OpenAI-compatible servers share.
	OpenAI Wire = "openai"
)

// Env is what the model under test is pointed at.
type Env struct {
	// BaseURL is the simulator's address as the wire's clients take it:
	// http://127.0.0.1:PORT for Anthropic, http://127.0.0.1:PORT/v1 for
	// OpenAI.
	BaseURL string
	// APIKey is the key the model must send (x-api-key, or Authorization:
	// Bearer). It must appear in no error the model returns.
	APIKey string
}

// apiKey is recognisable, so a leak of it is found wherever it shows.
const apiKey = "sk-llmtest-SECRET-5f3c9a17d2e84b60"

// Run runs every case of the suite against the models newModel builds,
// each case as a subtest of t; newModel is called once per case, with a
// simulator of its own. It fails t's subtests where the model does not
// behave as nightshift's parts rely on.
func Run(t *testing.T, wire Wire, newModel func(t *testing.T, env Env) llm.Model) {
	if wire != Anthropic && wire != OpenAI {
		t.Fatalf("llmtest: unknown wire %q", wire)
	}
	s := &suite{wire: wire, newModel: newModel}
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) { c.run(t, s) })
	}
}

// suite is one run's settings.
type suite struct {
	wire     Wire
	newModel func(t *testing.T, env Env) llm.Model
}

// testCase is one case of the suite.
type testCase struct {
	name string
	run  func(t *testing.T, s *suite)
}

// sim is one case's simulator with the model under test pointed at it.
type sim struct {
	*scripted.Server
	model llm.Model
	url   string

	mu      sync.Mutex
	headers []http.Header
	// waiting is signalled when the server starts a scripted delay: the
	// call is then in flight.
	waiting chan struct{}
}

// stalled is the simulator's clock: a scripted delay lasts until the
// client goes away, so only the caller's context ends a delayed call.
type stalled struct{ waiting chan struct{} }

var _ clock.Clock = stalled{}

func (stalled) Now() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

func (c stalled) Sleep(ctx context.Context, _ time.Duration) error {
	select {
	case c.waiting <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

// start serves yaml and builds the model under test on it.
func (s *suite) start(t *testing.T, yaml string) *sim {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatalf("llmtest: scenario: %v", err)
	}
	x := &sim{waiting: make(chan struct{}, 64)}
	x.Server = scripted.NewServer(sc, scripted.ServerConfig{Clock: stalled{x.waiting}})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.mu.Lock()
		x.headers = append(x.headers, r.Header.Clone())
		x.mu.Unlock()
		x.Server.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	x.url = hs.URL
	x.model = s.newModel(t, Env{BaseURL: s.baseURL(hs.URL), APIKey: apiKey})
	if x.model == nil {
		t.Fatal("llmtest: newModel returned nil")
	}
	return x
}

func (s *suite) baseURL(server string) string {
	if s.wire == OpenAI {
		return server + "/v1"
	}
	return server
}

// calls is the number of HTTP requests the server received.
func (x *sim) calls() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.headers)
}

// generate calls the model with a one-line conversation.
func (x *sim) generate(t *testing.T, text string) (*llm.Response, error) {
	t.Helper()
	return x.model.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText(text)}})
}

// mustGenerate is generate that fails the test on an error.
func (x *sim) mustGenerate(t *testing.T, req *llm.Request) *llm.Response {
	t.Helper()
	resp, err := x.model.Generate(t.Context(), req)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if resp == nil {
		t.Fatal("Generate returned neither a response nor an error")
	}
	return resp
}

// mustFail checks that err is a classified provider failure — an
// *llm.Error matching llm.ErrProvider, naming its provider — with the API
// key in none of its renderings, and returns it.
func mustFail(t *testing.T, err error) *llm.Error {
	t.Helper()
	if err == nil {
		t.Fatal("Generate succeeded; want a failure")
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	if !errors.Is(err, llm.ErrProvider) {
		t.Errorf("errors.Is(err, llm.ErrProvider) is false")
	}
	if e.Provider == "" {
		t.Errorf("the error names no provider")
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), e.Message} {
		if strings.Contains(s, apiKey) {
			t.Fatalf("the API key appears in the error: %s", s)
		}
	}
	return e
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// cancelInFlight returns a context that is cancelled once the server is
// waiting out a scripted delay: the call is then in flight, not refused
// before sending.
func (x *sim) cancelInFlight(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go func() {
		select {
		case <-x.waiting:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx
}
