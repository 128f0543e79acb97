package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/internal/endpoint"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/provider"
	"github.com/nightshift-dev/nightshift/runspec"
)

// modelSpec is a model as it is resolved to a live one: a spec's model
// group (runspec.Model, which the flags --provider, --model, --base-url,
// --scenario, --stream and --max-tokens-field are bound to), and what the
// resolution adds.
type modelSpec struct {
	runspec.Model
	// stall is --stall: a stream quiet this long is cancelled and retried
	// (0: the providers' default, 2m; negative: never).
	stall time.Duration
	// role is what the model is for, models.Worker ("") or models.Judge:
	// without a model name, the model table's default for that role is
	// used, and named in the start line, the record and every request.
	role string
	// other is set for a judge or a fallback on another provider than
	// the worker's: --base-url is the worker's, so its endpoint comes
	// only from its provider's *_BASE_URL, and its messages say so.
	other bool
}

// providers lists the provider names, for messages (the one registry:
// runspec.Providers).
var providers = runspec.ProviderList()

// resolveProvider applies the default: anthropic when its key is set, else
// openai when its key is set.
func resolveProvider(p string, getenv func(string) string) (string, error) {
	if p != "" {
		if runspec.IsProvider(p) {
			return p, nil
		}
		return "", usagef("unknown provider %q: use %s", p, providers)
	}
	switch {
	case getenv("ANTHROPIC_API_KEY") != "":
		return "anthropic", nil
	case getenv("OPENAI_API_KEY") != "":
		return "openai", nil
	}
	return "", usagef("no model provider: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --provider scripted --scenario FILE to run a scripted model without a key (try: nightshift demo)")
}

// build returns the model the flags describe and the model name to send.
func (f modelSpec) build(getenv func(string) string) (llm.Model, string, error) {
	b, err := f.resolve(getenv)
	if err != nil {
		return nil, "", err
	}
	return b.model, b.name, nil
}

// built is a resolved model with what identifies its rate limit.
type built struct {
	model llm.Model
	name  string
	// baseURL is where its calls go; "" means the provider's public API.
	baseURL string
	// endpoint and credential key the shared limiter: one per credential
	// at one endpoint. The credential is hashed by the limiter registry,
	// never stored or printed.
	endpoint, credential string
	// provider names the resolved provider (anthropic, openai or
	// scripted), for the model table and the judge's endpoint.
	provider string
}

// target says where the model's calls go, for a run's start event: the
// base URL, the provider's public API, or "in-process" for a scripted
// model.
func (b *built) target() string {
	switch {
	case b.provider == "scripted":
		return "in-process"
	case b.baseURL != "":
		return b.baseURL
	}
	return endpoint.PublicAPI[b.provider]
}

// resolve builds the model and names its credential.
func (f modelSpec) resolve(getenv func(string) string) (*built, error) {
	p, err := resolveProvider(f.Provider, getenv)
	if err != nil {
		return nil, err
	}
	if f.MaxTokensField != "" && p != "openai" {
		return nil, usagef("--max-tokens-field is for the OpenAI wire (--provider openai), not %s", p)
	}
	m, name, err := f.buildProvider(p, getenv)
	if err != nil {
		return nil, err
	}
	b := &built{model: m, name: name, provider: p}
	switch p {
	case "anthropic":
		b.baseURL = cmp.Or(f.BaseURL, getenv("ANTHROPIC_BASE_URL"))
		b.credential = getenv("ANTHROPIC_API_KEY")
	case "openai":
		b.baseURL = cmp.Or(f.BaseURL, getenv("OPENAI_BASE_URL"))
		b.credential = getenv("OPENAI_API_KEY")
	default:
		// A scenario is its own "server": its file, wherever it is
		// named from.
		b.credential = f.Scenario
		if abs, err := filepath.Abs(f.Scenario); err == nil {
			b.credential = abs
		}
	}
	// The one endpoint key of every command (package internal/endpoint): a
	// night's model on the same server with the same key paces with it.
	b.endpoint = endpoint.Of(p, b.baseURL, b.credential, getenv).Endpoint()
	return b, nil
}

// buildProvider constructs provider p's model.
func (f modelSpec) buildProvider(p string, getenv func(string) string) (llm.Model, string, error) {
	name := f.ModelName
	if name == "" && f.role == "" && !f.other {
		// NIGHTSHIFT_MODEL names the worker's model, never one on another
		// provider (a fallback named "openai:" is that provider's default).
		name = getenv("NIGHTSHIFT_MODEL")
	}
	if name == "" && p != "scripted" {
		// The provider's default, named here rather than left to the
		// SDK client: the start line, the events and the run record say
		// which model ran (the clients' defaults are the same table's).
		name = models.Default().DefaultModel(p, cmp.Or(f.role, models.Worker))
	}
	switch p {
	case "scripted":
		if f.Scenario == "" {
			return nil, "", usagef("--provider scripted needs --scenario FILE (the format is in docs/scenarios.md)")
		}
		m, err := provider.Build(provider.Config{Provider: p, Scenario: f.Scenario})
		if err != nil {
			return nil, "", scenarioError(f.Scenario, err)
		}
		return m, cmp.Or(name, "scripted"), nil
	case "anthropic":
		key := getenv("ANTHROPIC_API_KEY")
		if key == "" && f.BaseURL == "" && getenv("ANTHROPIC_BASE_URL") == "" {
			if f.other {
				return nil, "", usagef("the anthropic provider needs ANTHROPIC_API_KEY, or ANTHROPIC_BASE_URL for a compatible server (--base-url is the worker's)")
			}
			return nil, "", usagef("--provider anthropic needs ANTHROPIC_API_KEY (or use --provider scripted --scenario FILE)")
		}
		c, err := provider.Build(provider.Config{Provider: p, APIKey: key, BaseURL: cmp.Or(f.BaseURL, getenv("ANTHROPIC_BASE_URL")), Model: name, Stream: f.Stream, Stall: f.stall})
		if err != nil {
			return nil, "", usageError(err)
		}
		return c, name, nil
	default:
		key := getenv("OPENAI_API_KEY")
		if key == "" && f.BaseURL == "" && getenv("OPENAI_BASE_URL") == "" {
			if f.other {
				return nil, "", usagef("the openai provider needs OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server (--base-url is the worker's)")
			}
			return nil, "", usagef("--provider openai needs OPENAI_API_KEY, or --base-url for an OpenAI-compatible server (or use --provider scripted --scenario FILE)")
		}
		c, err := provider.Build(provider.Config{Provider: p, APIKey: key, BaseURL: cmp.Or(f.BaseURL, getenv("OPENAI_BASE_URL")), Model: name, Stream: f.Stream,
			MaxTokensField: f.MaxTokensField, Stall: f.stall})
		if err != nil {
			return nil, "", usageError(err)
		}
		return c, name, nil
	}
}

// judgeFlags returns the flags of the model --judge-model names: "" (the
// worker's model: ok is false), "MODEL" (the worker's provider, another
// model) or "PROVIDER:MODEL".
//
// A judge on the worker's provider calls the worker's endpoint, however
// that provider was chosen: by --provider, or from the keys in the
// environment (issue 11: with ANTHROPIC_API_KEY set and --base-url, the
// judge's request, key included, went to the public API instead). A judge
// on another provider calls that provider's own *_BASE_URL, or its public
// API: --base-url belongs to the worker's.
func (f modelSpec) judgeFlags(spec string, getenv func(string) string) (jf modelSpec, ok bool) {
	if spec == "" {
		return f, false
	}
	jf = f
	worker, err := resolveProvider(f.Provider, getenv)
	if err == nil {
		jf.Provider = worker
	}
	// PROVIDER:MODEL is read once, by the registry (checkModelSpec
	// refused a provider with a typo before this).
	if p, m, _ := runspec.ParseModelRef(spec); p != "" {
		if p != jf.Provider {
			// A base URL and a cap field belong to the worker's provider.
			jf.BaseURL, jf.MaxTokensField = "", ""
			jf.other = true
		}
		jf.Provider, jf.ModelName = p, m
	} else {
		jf.ModelName = spec
	}
	return jf, true
}

// judgeModel resolves --judge-model to a model and its name; "" is the
// worker's own.
func (f modelSpec) judgeModel(spec string, worker llm.Model, workerName string, getenv func(string) string) (llm.Model, string, error) {
	jb, err := f.judge(spec, getenv)
	if err != nil {
		return nil, "", err
	}
	if jb == nil {
		return worker, workerName, nil
	}
	return jb.model, jb.name, nil
}

// judge builds the model --judge-model names, or returns nil for the
// worker's own.
func (f modelSpec) judge(spec string, getenv func(string) string) (*built, error) {
	if err := checkModelSpec("--judge-model", spec); err != nil {
		return nil, err
	}
	jf, ok := f.judgeFlags(spec, getenv)
	if !ok {
		return nil, nil
	}
	jf.role = models.Judge
	jb, err := jf.resolve(getenv)
	if err != nil {
		return nil, fmt.Errorf("--judge-model %s: %w", spec, err)
	}
	return jb, nil
}

var osGetenv = os.Getenv

// defaultModels says, for --help, which model each provider uses when none
// is named: the model table's default workers (llm/models).
func defaultModels() string {
	t := models.Default()
	return fmt.Sprintf("anthropic %s, openai %s",
		t.DefaultModel("anthropic", models.Worker), t.DefaultModel("openai", models.Worker))
}

// scenarioError says what is wrong with a --scenario file, and where its
// format is: a path that is not there or a folder is named as such (it
// was the package's "scripted: open FILE: no such file or directory").
func scenarioError(path string, err error) error {
	if fi, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
		return usagef("--scenario %s: no such file (the format is in docs/scenarios.md; try: nightshift demo)", path)
	} else if serr == nil && fi.IsDir() {
		return usagef("--scenario %s is a folder: name a scenario file in it (docs/scenarios.md)", path)
	}
	return usagef("--scenario %v (the format is in docs/scenarios.md)", err)
}

// checkModelSpec refuses a --judge-model or --fallback-model that is
// blank or has spaces around it: such a name went to the provider as it
// was (a judge or a fallback named " "), to fail there, or never.
func checkModelSpec(flag, spec string) error {
	if spec != strings.TrimSpace(spec) {
		return usagef("%s %q: a model name has no spaces around it: write MODEL or PROVIDER:MODEL, or leave it out", flag, spec)
	}
	if _, _, err := runspec.ParseModelRef(spec); err != nil {
		return usagef("%s %v", flag, err)
	}
	return nil
}
