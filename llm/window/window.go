package window

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/internal/endpoint"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/statedir"
)

// DirName is the folder of the state directory (statedir.Base) that holds
// the windows learnt, one small file per endpoint and model.
const DirName = "windows"

// The places a window is learnt from, as Info.From names them.
const (
	FromLlamaCpp  = "llama.cpp /props"
	FromModels    = "/v1/models"
	FromVLLM      = "vLLM /v1/models"
	FromOllama    = "Ollama /api/show"
	FromOllamaPS  = "Ollama /api/ps"
	FromLMStudio  = "LM Studio /api/v1/models"
	FromLMStudio0 = "LM Studio /api/v0/models"
	FromOverflow  = "an overflow error"
)

// Info is what a server says about the model it serves.
type Info struct {
	// Tokens is the context window, prompt and output together, in
	// tokens; 0 when nothing said.
	Tokens int `json:"tokens"`
	// From names where it was learnt (FromLlamaCpp, FromOverflow, ...).
	From string `json:"from,omitempty"`
	// ToolsIgnored is true when the server runs the model through a chat
	// template without tool support (llama.cpp's /props
	// chat_template_caps.supports_tools false): the tools a request
	// offers are dropped without a word, and the model never sees them.
	ToolsIgnored bool `json:"tools_ignored,omitempty"`
}

// Asker asks a server about the model a client calls. The OpenAI
// provider's *openai.Client is one.
type Asker interface {
	// AskWindow asks the server's endpoints; an Info with Tokens 0 and a
	// nil error means none of them said.
	AskWindow(ctx context.Context) (Info, error)
	// WindowKey is the key (Key) the answer is kept under.
	WindowKey() string
}

// Key is the key of a model at an endpoint, for one credential: a hash
// over the endpoint's key (endpoint.Key: the provider, the base URL as
// the limiter keys it, the credential's hash), the one the rate limiter
// paces under, and the model name. Neither the endpoint nor the
// credential can be read back from it.
func Key(ep endpoint.Key, model string) string {
	sum := sha256.Sum256([]byte("nightshift window\x00" + ep.Provider + "\x00" + ep.BaseURL + "\x00" + ep.Credential + "\x00" + model))
	return hex.EncodeToString(sum[:16])
}

// Cache keeps the windows learnt: in the process, and in files of a folder
// of the state directory, one per key.
type Cache struct {
	dir string

	mu      sync.Mutex
	entries map[string]*entry
}

// entry is one key's answer in the process: asked once.
type entry struct {
	once sync.Once
	mu   sync.Mutex
	info Info
}

// Open returns a cache that keeps its files in dir (made, mode 0700, when
// first written); "" keeps windows in the process only.
func Open(dir string) *Cache { return &Cache{dir: dir, entries: map[string]*entry{}} }

var (
	sharedMu sync.Mutex
	shared   = map[string]*Cache{}
)

// Shared returns the process's one cache over dir, so that the runs of a
// process (a batch's tasks, a night's steps) ask each endpoint once.
func Shared(dir string) *Cache {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	c, ok := shared[dir]
	if !ok {
		c = Open(dir)
		shared[dir] = c
	}
	return c
}

func (c *Cache) entry(key string) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		e = &entry{}
		c.entries[key] = e
	}
	return e
}

// Learn returns the window of the model a reaches. The server is asked
// once per key in the process; when it says nothing, or cannot be asked,
// the window kept in the state directory (asked before, or named by an
// overflow error) is taken; with neither, the Info says nothing (Tokens
// 0). What the server said is kept for later runs.
func (c *Cache) Learn(ctx context.Context, a Asker) Info {
	key := a.WindowKey()
	e := c.entry(key)
	e.once.Do(func() {
		info, err := a.AskWindow(ctx)
		if err == nil && info.Tokens > 0 {
			c.write(key, info) //nolint:errcheck // a window not kept is asked again by the next process
		} else if kept, ok := c.read(key); ok {
			// The server's tool support is what it said now, if it said.
			kept.ToolsIgnored = kept.ToolsIgnored || info.ToolsIgnored
			info = kept
		}
		e.mu.Lock()
		e.info = mergeLearnt(e.info, info)
		e.mu.Unlock()
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.info
}

// mergeLearnt is what a key holds once asked: the answer, unless an
// overflow error taught a window in the meantime (Remember).
func mergeLearnt(had, asked Info) Info {
	if had.Tokens > 0 && had.From == FromOverflow {
		had.ToolsIgnored = had.ToolsIgnored || asked.ToolsIgnored
		return had
	}
	return asked
}

// Remember keeps a window learnt otherwise than by asking (an overflow
// error) under key, for this process and the ones after it.
func (c *Cache) Remember(key string, info Info) error {
	if info.Tokens <= 0 {
		return nil
	}
	e := c.entry(key)
	e.mu.Lock()
	info.ToolsIgnored = info.ToolsIgnored || e.info.ToolsIgnored
	e.info = info
	e.mu.Unlock()
	return c.write(key, info)
}

// file is a kept window as written: the Info and when it was learnt.
type file struct {
	Info
	At time.Time `json:"at"`
}

func (c *Cache) path(key string) string { return filepath.Join(c.dir, key+".json") }

func (c *Cache) write(key string, info Info) error {
	if c.dir == "" {
		return nil
	}
	if err := statedir.MkdirPrivate(c.dir); err != nil {
		return err
	}
	b, err := json.Marshal(file{Info: info, At: time.Now().UTC()})
	if err != nil {
		return err
	}
	return statedir.WriteFile(c.path(key), b)
}

func (c *Cache) read(key string) (Info, bool) {
	if c.dir == "" {
		return Info{}, false
	}
	b, err := statedir.ReadFile(c.path(key))
	if err != nil {
		return Info{}, false
	}
	var f file
	if json.Unmarshal(b, &f) != nil || f.Tokens <= 0 {
		return Info{}, false
	}
	return f.Info, true
}

// Watch returns m with every context-overflow error it returns that names
// the window (llama.cpp's n_ctx, vLLM's maximum context length) kept under
// key, so that the next run starts from it when the server cannot be
// asked. The error itself is returned as it was.
func (c *Cache) Watch(m llm.Model, key string) llm.Model {
	return &watched{Model: m, c: c, key: key}
}

type watched struct {
	llm.Model
	c   *Cache
	key string
}

func (w *watched) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	resp, err := w.Model.Generate(ctx, req)
	var e *llm.Error
	if err != nil && errors.As(err, &e) && e.Class == llm.ContextOverflow && e.Window > 0 {
		w.c.Remember(w.key, Info{Tokens: e.Window, From: FromOverflow}) //nolint:errcheck // the run goes on from the error itself
	}
	return resp, err
}

// Provider names the wrapped model's API, when it names one (traces read
// it).
func (w *watched) Provider() string {
	if p, ok := w.Model.(interface{ Provider() string }); ok {
		return p.Provider()
	}
	return ""
}
