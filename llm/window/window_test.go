package window_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/endpoint"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/window"
)

// asker is a server that answers with info (or fails with err), counting
// the questions.
type asker struct {
	key  string
	info window.Info
	err  error

	mu    sync.Mutex
	asked int
}

func (a *asker) AskWindow(context.Context) (window.Info, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked++
	return a.info, a.err
}

func (a *asker) WindowKey() string { return a.key }

func TestLearn(t *testing.T) {
	key := window.Key(endpoint.Of("openai", "http://127.0.0.1:8080/v1", "", nil), "qwen")
	t.Run("the server is asked once per key in a process, and what it said is kept", func(t *testing.T) {
		dir := t.TempDir()
		c := window.Open(dir)
		a := &asker{key: key, info: window.Info{Tokens: 512, From: window.FromLlamaCpp}}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if got := c.Learn(context.Background(), a); got.Tokens != 512 {
					t.Errorf("Learn = %+v", got)
				}
			})
		}
		wg.Wait()
		if a.asked != 1 {
			t.Errorf("asked %d times, want once", a.asked)
		}
		// Another process cannot reach the server: it starts from the file.
		down := &asker{key: key, err: errors.New("connection refused")}
		if got := window.Open(dir).Learn(context.Background(), down); got != a.info {
			t.Errorf("Learn with the server down = %+v, want the kept %+v", got, a.info)
		}
	})
	t.Run("a server that says nothing and nothing kept: unknown", func(t *testing.T) {
		c := window.Open(t.TempDir())
		if got := c.Learn(context.Background(), &asker{key: key}); got.Tokens != 0 {
			t.Errorf("Learn = %+v, want nothing", got)
		}
	})
	t.Run("the file names neither the endpoint nor the credential", func(t *testing.T) {
		dir := t.TempDir()
		secret := "sk-local-made-up-0123456789"
		k := window.Key(endpoint.Of("openai", "http://gpu-box.internal:8000/v1", secret, nil), "qwen")
		window.Open(dir).Learn(context.Background(), &asker{key: k, info: window.Info{Tokens: 32768, From: window.FromVLLM}})
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		if len(files) != 1 {
			t.Fatalf("files %v, want one", files)
		}
		b, _ := os.ReadFile(files[0])
		for _, s := range []string{secret, "gpu-box", "qwen"} {
			if strings.Contains(string(b)+files[0], s) {
				t.Errorf("%s holds %q: %s", files[0], s, b)
			}
		}
	})
}

// TestWatchKeepsTheWindowAnOverflowNames: when asking fails, a window
// learnt from the server's overflow error is what the next run starts
// from (issue 28).
func TestWatchKeepsTheWindowAnOverflowNames(t *testing.T) {
	dir := t.TempDir()
	key := window.Key(endpoint.Of("openai", "http://127.0.0.1:8080/v1", "", nil), "qwen")
	overflow := llm.OverflowError(&llm.Error{Provider: "openai", Status: 400, Class: llm.ContextOverflow,
		Message: "request (1210 tokens) exceeds the available context size (512 tokens), try increasing it"})
	m := window.Open(dir).Watch(llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return nil, overflow
	}), key)
	if _, err := m.Generate(context.Background(), &llm.Request{}); !errors.Is(err, overflow) {
		t.Fatalf("Generate: %v, want the overflow as it was", err)
	}
	got := window.Open(dir).Learn(context.Background(), &asker{key: key, err: errors.New("no /props")})
	if want := (window.Info{Tokens: 512, From: window.FromOverflow}); got != want {
		t.Errorf("the next run's window %+v, want %+v", got, want)
	}
}

// TestTheWindowIsKeyedOnTheLimitersEndpointKey: the window learnt is
// kept under the endpoint's key the rate limiter paces under
// (endpoint.Of), so that one spelling of a base URL is one endpoint for
// both, and another credential or model is another window (issue 24).
func TestTheWindowIsKeyedOnTheLimitersEndpointKey(t *testing.T) {
	a := window.Key(endpoint.Of("openai", "http://gpu-box:8000/v1/", "sk-made-up-1", nil), "qwen")
	if b := window.Key(endpoint.Of("openai", "http://gpu-box:8000/v1", "sk-made-up-1", nil), "qwen"); a != b {
		t.Errorf("a trailing slash made another window: %s, %s", a, b)
	}
	for name, k := range map[string]string{
		"another credential": window.Key(endpoint.Of("openai", "http://gpu-box:8000/v1", "sk-made-up-2", nil), "qwen"),
		"another model":      window.Key(endpoint.Of("openai", "http://gpu-box:8000/v1", "sk-made-up-1", nil), "llama"),
	} {
		if k == a {
			t.Errorf("%s: the same window key", name)
		}
	}
	def := endpoint.Of("openai", "", "sk-made-up-1", func(string) string { return "" })
	if window.Key(def, "gpt") != window.Key(endpoint.Of("openai", "https://api.openai.com/v1", "sk-made-up-1", nil), "gpt") {
		t.Errorf("no base URL and the public API's are two windows")
	}
}
