package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/encoded"
	"github.com/nightshift-dev/nightshift/llm/internal/reqbody"
	"github.com/nightshift-dev/nightshift/llm/internal/stall"
	"github.com/nightshift-dev/nightshift/llm/internal/transport"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/window"
)

// Provider is the name this package gives itself in every *llm.Error.
const Provider = "openai"

// DefaultModel is the model used when neither the request nor the Config
// names one: the model table's default worker for OpenAI (llm/models).
// Against a compatible server, set Config.Model to a model that server has.
var DefaultModel = models.Default().DefaultModel(Provider, models.Worker)

// DefaultMaxTokens is the output cap used when neither the request nor the
// Config sets one.
const DefaultMaxTokens = 4096

// The names of the request field that carries the output cap.
const (
	FieldMaxTokens           = "max_tokens"
	FieldMaxCompletionTokens = "max_completion_tokens"
)

// placeholderKey is sent when a base URL is set but no key is: local
// OpenAI-compatible servers (Ollama, vLLM, llama.cpp) ignore the key, and
// the SDK still wants one.
const placeholderKey = "sk-no-key-required"

// Config configures a Client. The zero value reads the key and base URL
// from the environment.
type Config struct {
	// APIKey authenticates the calls. Default: $OPENAI_API_KEY. It may
	// stay empty when BaseURL is set: a placeholder is sent instead.
	APIKey string
	// BaseURL is the API's address, including /v1 (for Ollama,
	// http://localhost:11434/v1). Default: $OPENAI_BASE_URL, else
	// https://api.openai.com/v1.
	BaseURL string
	// Model is used when a request names none. Default: DefaultModel.
	Model string
	// MaxTokens caps the output when a request sets no cap. Default:
	// DefaultMaxTokens (4096).
	MaxTokens int
	// MaxTokensField names the request field that carries the output
	// cap: FieldMaxCompletionTokens or FieldMaxTokens. Default:
	// max_completion_tokens for OpenAI's own endpoint (no base URL, or one
	// on api.openai.com), whose reasoning models accept nothing else;
	// max_tokens for any other server, since every OpenAI-compatible
	// server understands it and not all know the newer name.
	MaxTokensField string
	// Stream makes each call stream the reply (server-sent events, with
	// stream_options.include_usage so usage still arrives) and accumulate
	// it. Default false: one JSON reply per call.
	Stream bool
	// Stall cancels a streaming call that receives no byte for this long;
	// the call fails as a Timeout, which the retry layer retries. Default
	// 2 minutes (stall.DefaultTimeout); negative never. Calls that do not
	// stream are bounded by the retry policy's CallTimeout instead.
	Stall time.Duration
	// PrefillPerToken is what the stall watch allows a stream per prompt
	// token before its first byte, on top of Stall, until the client has
	// seen the server's own speed (stall.Prefill): a local server sends
	// nothing until it has read the whole prompt. Default
	// stall.DefaultPerToken (20ms); negative allows nothing.
	PrefillPerToken time.Duration
	// Clock times Stall; default clock.Real{}.
	Clock clock.Clock
	// HTTPClient sends the requests. Default: the one client shared by
	// every provider client of the process that names none, so that all
	// runs reuse each endpoint's connections: a clone of
	// http.DefaultTransport that keeps at most 64 idle connections per
	// endpoint, closes them after 30s unused, and gives up on a server
	// that sends no response headers within ten minutes.
	HTTPClient *http.Client
	// Headers are extra headers sent with every call. Default: none.
	Headers map[string]string
}

// Client is an llm.Model on the Chat Completions API of OpenAI and of
// OpenAI-compatible servers. It is safe for concurrent use.
type Client struct {
	sdk                 sdk.Client
	key                 string
	model               string
	maxTokens           int
	maxCompletionTokens bool
	stream              bool
	// enc keeps the encoding of every message sent, so that a call
	// encodes only what is new (request).
	enc *encoded.Cache
	// bodies lends the request bodies of calls that do not stream.
	bodies reqbody.Pool
	stall  time.Duration
	clock  clock.Clock
	// prefill times a stream's first byte (stall.Prefill).
	prefill *stall.Prefill
	// base, hc and headers are where the calls go and how, for the
	// questions AskWindow asks the server.
	base    string
	hc      *http.Client
	headers map[string]string
}

var (
	_ llm.Model    = (*Client)(nil)
	_ window.Asker = (*Client)(nil)
)

// ErrNoAPIKey is returned by New when there is neither a key nor a base URL.
var ErrNoAPIKey = errors.New("openai: no API key: set OPENAI_API_KEY or Config.APIKey (or a BaseURL for a local server)")

// New returns a Client for cfg. The SDK's own retries are off: the retry
// package is the one, visible retry layer, so each Generate is exactly one
// HTTP request. Besides the key and base URL, the SDK reads
// $OPENAI_ORG_ID and $OPENAI_PROJECT_ID from the environment, as it does
// for every OpenAI client.
func New(cfg Config) (*Client, error) {
	key := cmp.Or(cfg.APIKey, os.Getenv("OPENAI_API_KEY"))
	base := cmp.Or(cfg.BaseURL, os.Getenv("OPENAI_BASE_URL"))
	if key == "" {
		if base == "" {
			return nil, ErrNoAPIKey
		}
		key = placeholderKey
	}
	if cfg.MaxTokens < 0 {
		return nil, errors.New("openai: Config.MaxTokens must not be negative")
	}
	field, err := maxTokensField(cfg.MaxTokensField, base)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = transport.Shared()
	}
	opts := []option.RequestOption{
		option.WithMaxRetries(0),
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
	}
	if base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return &Client{
		sdk:                 sdk.NewClient(opts...),
		key:                 key,
		model:               cmp.Or(cfg.Model, DefaultModel),
		maxTokens:           cmp.Or(cfg.MaxTokens, DefaultMaxTokens),
		maxCompletionTokens: field == FieldMaxCompletionTokens,
		stream:              cfg.Stream,
		enc:                 encoded.New(0),
		stall:               stall.Or(cfg.Stall),
		clock:               cmp.Or[clock.Clock](cfg.Clock, clock.Real{}),
		prefill:             stall.NewPrefill(cfg.PrefillPerToken),
		base:                base,
		hc:                  hc,
		headers:             cfg.Headers,
	}, nil
}

// maxTokensField applies MaxTokensField's default for the endpoint base
// ("" is OpenAI's own).
func maxTokensField(field, base string) (string, error) {
	switch field {
	case FieldMaxTokens, FieldMaxCompletionTokens:
		return field, nil
	case "":
	default:
		return "", fmt.Errorf("openai: Config.MaxTokensField %q: use %s or %s", field, FieldMaxTokens, FieldMaxCompletionTokens)
	}
	if base == "" {
		return FieldMaxCompletionTokens, nil
	}
	if u, err := url.Parse(base); err == nil && u.Hostname() == "api.openai.com" {
		return FieldMaxCompletionTokens, nil
	}
	return FieldMaxTokens, nil
}

// Generate makes one call to the Chat Completions API. Every failure is a
// *llm.Error with Provider "openai".
func (c *Client) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	call, err := c.request(req, c.stream)
	if err != nil {
		return nil, err
	}
	if c.stream {
		return c.generateStream(ctx, call, llm.Tokens(req.Chars()))
	}
	return c.generateOnce(ctx, call)
}

// watchStall is the request option of a streaming call of a prompt of
// about tokens tokens: the stall watch, when there is one, with the time
// the server may take to read the prompt before its first byte
// (stall.Prefill); the first byte's time is put in *first.
func (c *Client) watchStall(tokens int64, first *time.Duration) []option.RequestOption {
	if c.stall <= 0 {
		return nil
	}
	l := stall.Limits{Quiet: c.stall, First: c.prefill.Allowance(tokens), OnFirstByte: func(d time.Duration) { *first = d }}
	return []option.RequestOption{option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return stall.WatchFirst(req, next, l, c.clock, Provider)
	})}
}
