package anthropic

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"os"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/encoded"
	"github.com/nightshift-dev/nightshift/llm/internal/reqbody"
	"github.com/nightshift-dev/nightshift/llm/internal/stall"
	"github.com/nightshift-dev/nightshift/llm/internal/transport"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// Provider is the name this package gives itself in every *llm.Error.
const Provider = "anthropic"

// DefaultModel is the model used when neither the request nor the Config
// names one: the model table's default worker for Anthropic (llm/models),
// a current Sonnet, the balance of speed and capability that agent loops
// are usually run on.
var DefaultModel = models.Default().DefaultModel(Provider, models.Worker)

// DefaultMaxTokens is the output cap used when neither the request nor the
// Config sets one.
const DefaultMaxTokens = 4096

// Config configures a Client. The zero value reads the key and base URL
// from the environment.
type Config struct {
	// APIKey authenticates the calls. Default: $ANTHROPIC_API_KEY. It may
	// stay empty only when BaseURL is set (a local simulator needs none).
	APIKey string
	// BaseURL is the API's address, without /v1. Default:
	// $ANTHROPIC_BASE_URL, else the SDK's (https://api.anthropic.com).
	BaseURL string
	// Model is used when a request names none. Default: DefaultModel.
	Model string
	// MaxTokens caps the output when a request sets no cap. Default:
	// DefaultMaxTokens (4096).
	MaxTokens int
	// Stream makes each call use the streaming API (server-sent events) and
	// accumulate the reply. Default false: one JSON reply per call. Long
	// replies need streaming: the API refuses non-streaming calls that may
	// run past ten minutes.
	Stream bool
	// Stall cancels a streaming call that receives no byte for this long;
	// the call fails as a Timeout, which the retry layer retries. Default
	// 2 minutes (stall.DefaultTimeout); negative never. Calls that do not
	// stream are bounded by the retry policy's CallTimeout instead.
	Stall time.Duration
	// PrefillPerToken is what the stall watch allows a stream per prompt
	// token before its first byte, on top of Stall, until the client has
	// seen the server's own speed (stall.Prefill): a server behind the
	// Messages API (a local one through a gateway, or a hosted one on a
	// very long prompt) sends nothing until it has read the prompt.
	// Default stall.DefaultPerToken (20ms); negative allows nothing.
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
	// Headers are extra headers sent with every call (for example an
	// anthropic-beta flag). Default: none.
	Headers map[string]string
}

// Client is an llm.Model on Anthropic's Messages API. It is safe for
// concurrent use.
type Client struct {
	sdk       sdk.Client
	key       string
	model     string
	maxTokens int
	stream    bool
	// enc keeps the encoding of every message sent, so that a call
	// encodes only what is new (request).
	enc *encoded.Cache
	// bodies lends the request bodies of calls that do not stream.
	bodies reqbody.Pool
	stall  time.Duration
	// prefill times a stream's first byte (stall.Prefill).
	prefill *stall.Prefill
	clock   clock.Clock
}

var _ llm.Model = (*Client)(nil)

// ErrNoAPIKey is returned by New when there is neither a key nor a base URL.
var ErrNoAPIKey = errors.New("anthropic: no API key: set ANTHROPIC_API_KEY or Config.APIKey")

// New returns a Client for cfg. The SDK's own retries are off: the retry
// package is the one, visible retry layer, so each Generate is exactly one
// HTTP request.
func New(cfg Config) (*Client, error) {
	key := cmp.Or(cfg.APIKey, os.Getenv("ANTHROPIC_API_KEY"))
	base := cmp.Or(cfg.BaseURL, os.Getenv("ANTHROPIC_BASE_URL"))
	if key == "" && base == "" {
		return nil, ErrNoAPIKey
	}
	if cfg.MaxTokens < 0 {
		return nil, errors.New("anthropic: Config.MaxTokens must not be negative")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = transport.Shared()
	}
	opts := []option.RequestOption{
		// The environment is read above, once, by this package: the SDK's
		// own chain (profiles, federation, custom headers) would make a
		// call's credentials depend on files this Config does not show.
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0),
		option.WithHTTPClient(hc),
		// nightshift's own tracing (package tracing) records each model
		// call as a span, with the run's; the SDK's span, made through a
		// globally registered provider, would be a second one for the
		// same call, and its trace headers would name it. Off, it also
		// stops building that span's attributes on every call, which was
		// a tenth of the bytes a step of a long run allocated.
		option.WithoutOpenTelemetry(),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	enc := encoded.New(0)
	enc.Derive = markLast
	return &Client{
		sdk:       sdk.NewClient(opts...),
		key:       key,
		model:     cmp.Or(cfg.Model, DefaultModel),
		maxTokens: cmp.Or(cfg.MaxTokens, DefaultMaxTokens),
		stream:    cfg.Stream,
		enc:       enc,
		stall:     stall.Or(cfg.Stall),
		prefill:   stall.NewPrefill(cfg.PrefillPerToken),
		clock:     cmp.Or[clock.Clock](cfg.Clock, clock.Real{}),
	}, nil
}

// Generate makes one call to the Messages API. Every failure is a
// *llm.Error with Provider "anthropic".
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
