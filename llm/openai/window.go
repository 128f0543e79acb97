package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/internal/endpoint"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/window"
)

// askTimeout bounds each question AskWindow asks: a local server answers
// in milliseconds, and one that does not must not hold up the run.
const askTimeout = 5 * time.Second

// maxAnswer bounds an answer read (llama.cpp's /props carries the chat
// template, Ollama's /api/show the licence: kilobytes, not megabytes).
const maxAnswer = 4 << 20

// ollamaDefaultWindow is the context Ollama runs a model with when neither
// the model's parameters (num_ctx) nor the server (OLLAMA_CONTEXT_LENGTH)
// set one, on a machine with little memory; Ollama cuts a longer prompt
// without saying so.
const ollamaDefaultWindow = 4096

// WindowKey is the key the model's window is kept under (window.Key):
// the endpoint's key, as the rate limiter's (endpoint.Of: the provider,
// the base URL or its default, the credential's hash; no key is no
// credential, as for the limiter), and the model name.
func (c *Client) WindowKey() string {
	cred := c.key
	if cred == placeholderKey {
		cred = ""
	}
	return window.Key(endpoint.Of(Provider, c.base, cred, os.Getenv), c.model)
}

// AskWindow asks the server the client calls for the context window of
// the client's model, in the shapes the OpenAI-compatible servers answer
// it, in this order:
//
//  1. GET {base}/models: vLLM's max_model_len; llama.cpp's entry
//     (owned_by llamacpp, meta.n_ctx) sends the next question to its
//     /props;
//  2. GET /props (llama.cpp): default_generation_settings.n_ctx, the
//     window of each of its slots, and chat_template_caps.supports_tools;
//  3. GET /api/v1/models (LM Studio 0.4): the loaded instance's
//     context_length, else the model's max_context_length;
//     GET /api/v0/models/{model} (LM Studio 0.3): max_context_length;
//  4. GET /api/ps and POST /api/show (Ollama): the loaded model's
//     context_length; else num_ctx in its parameters; else the model's
//     context length in model_info, at most Ollama's default of 4096.
//
// /props, /api/... are asked at the server's root: the base URL without
// its /v1. Each question is bounded by 5 seconds; one that fails goes on
// to the next. OpenAI's own API is not asked, nor any server about a model
// the model table knows (its window is the table's). The error is that of the first question when none answered:
// the server could not be reached.
func (c *Client) AskWindow(ctx context.Context) (window.Info, error) {
	if c.base == "" || isOpenAI(c.base) {
		return window.Info{}, nil
	}
	if row, ok := models.Default().Lookup(Provider, c.model); ok && row.ContextWindow > 0 {
		// A model the table knows is a hosted one, whatever server
		// relays it: its window is the table's, and its server is not
		// asked questions it has no answers for.
		return window.Info{}, nil
	}
	base := strings.TrimRight(c.base, "/")
	root := strings.TrimSuffix(base, "/v1")
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}
	listed, served, err := c.askModels(ctx, base+"/models")
	note(err)
	switch {
	case listed.Tokens > 0 && listed.From == window.FromVLLM:
		return listed, nil
	case !served:
		// The server lists its models and the client's is not one of
		// them: none of the four serves it, and a model the server
		// does not list is not asked about.
		return window.Info{}, nil
	}
	if info, err := c.askProps(ctx, root+"/props"); err == nil && info.Tokens > 0 {
		return info, nil
	} else if err != nil {
		note(err)
	}
	if listed.Tokens > 0 {
		return listed, nil // llama.cpp without /props
	}
	for _, ask := range []func(context.Context, string) (window.Info, error){c.askLMStudio, c.askOllama} {
		info, err := ask(ctx, root)
		if err == nil && info.Tokens > 0 {
			return info, nil
		}
		note(err)
	}
	if first != nil && !errors.Is(first, errNotThere) {
		return window.Info{}, first
	}
	return window.Info{}, nil
}

// isOpenAI reports whether base is OpenAI's own API.
func isOpenAI(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Hostname() == "api.openai.com"
}

// errNotThere is the failure of a question the server has no endpoint
// for: the answer to another server's question.
var errNotThere = errors.New("no such endpoint")

// get asks one question and decodes its JSON answer into v. body is sent
// as a POST when not nil.
func (c *Client) get(ctx context.Context, target string, body any, v any) error {
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		method, rd = http.MethodPost, bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != placeholderKey {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		// The error names the URL, never the key (it goes in a header).
		return fmt.Errorf("openai: asking the server for its context window: %w", err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("openai: asking %s: %w", target, err)
	}
	if res.StatusCode != http.StatusOK {
		return errNotThere
	}
	if err := json.Unmarshal(data, v); err != nil {
		return errNotThere // an answer, but not to this question
	}
	return nil
}

// askModels reads the model list: vLLM's max_model_len is the window;
// llama.cpp's meta.n_ctx is one (its /props says more). served is false
// when the server listed models and the client's is not one of them (a
// llama.cpp server, which answers for its one model whatever the name
// asked, is taken to serve it).
func (c *Client) askModels(ctx context.Context, target string) (info window.Info, served bool, err error) {
	var list struct {
		Data []struct {
			ID          string `json:"id"`
			OwnedBy     string `json:"owned_by"`
			MaxModelLen int    `json:"max_model_len"`
			Meta        struct {
				NCtx int `json:"n_ctx"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := c.get(ctx, target, nil, &list); err != nil {
		return window.Info{}, true, err
	}
	served = len(list.Data) == 0
	for _, m := range list.Data {
		llamaCpp := m.OwnedBy == "llamacpp" || m.Meta.NCtx > 0
		if m.ID != c.model && m.ID != c.model+":latest" && !(llamaCpp && len(list.Data) == 1) {
			continue
		}
		served = true
		switch {
		case m.MaxModelLen > 0:
			return window.Info{Tokens: m.MaxModelLen, From: window.FromVLLM}, true, nil
		case m.Meta.NCtx > 0:
			return window.Info{Tokens: m.Meta.NCtx, From: window.FromModels}, true, nil
		}
	}
	return window.Info{}, served, nil
}

// askProps reads llama.cpp's /props: the window of a slot, and whether
// the chat template supports tools.
func (c *Client) askProps(ctx context.Context, target string) (window.Info, error) {
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		Caps *struct {
			SupportsTools *bool `json:"supports_tools"`
		} `json:"chat_template_caps"`
	}
	if err := c.get(ctx, target, nil, &props); err != nil {
		return window.Info{}, err
	}
	info := window.Info{Tokens: props.Settings.NCtx, From: window.FromLlamaCpp}
	if props.Caps != nil && props.Caps.SupportsTools != nil && !*props.Caps.SupportsTools {
		info.ToolsIgnored = true
	}
	return info, nil
}

// askLMStudio reads LM Studio's model listing: the context a loaded
// instance runs with, else the model's maximum (newer versions), or
// v0's max_context_length.
func (c *Client) askLMStudio(ctx context.Context, root string) (window.Info, error) {
	var v1 struct {
		Models []struct {
			Key       string `json:"key"`
			MaxLength int    `json:"max_context_length"`
			Loaded    []struct {
				Config struct {
					ContextLength int `json:"context_length"`
				} `json:"config"`
			} `json:"loaded_instances"`
		} `json:"models"`
	}
	err := c.get(ctx, root+"/api/v1/models", nil, &v1)
	if err == nil {
		for _, m := range v1.Models {
			if m.Key != c.model && len(v1.Models) > 1 {
				continue
			}
			for _, l := range m.Loaded {
				if l.Config.ContextLength > 0 {
					return window.Info{Tokens: l.Config.ContextLength, From: window.FromLMStudio}, nil
				}
			}
			if m.MaxLength > 0 {
				return window.Info{Tokens: m.MaxLength, From: window.FromLMStudio}, nil
			}
		}
	}
	var v0 struct {
		MaxLength int `json:"max_context_length"`
	}
	if err := c.get(ctx, root+"/api/v0/models/"+url.PathEscape(c.model), nil, &v0); err != nil {
		return window.Info{}, err
	}
	return window.Info{Tokens: v0.MaxLength, From: window.FromLMStudio0}, nil
}

// askOllama reads Ollama's running models, else the model's details.
func (c *Client) askOllama(ctx context.Context, root string) (window.Info, error) {
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if c.get(ctx, root+"/api/ps", nil, &ps) == nil {
		for _, m := range ps.Models {
			if (m.Name == c.model || m.Model == c.model || strings.TrimSuffix(m.Name, ":latest") == c.model) && m.ContextLength > 0 {
				return window.Info{Tokens: m.ContextLength, From: window.FromOllamaPS}, nil
			}
		}
	}
	var show struct {
		Parameters string                     `json:"parameters"`
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
	}
	if err := c.get(ctx, root+"/api/show", map[string]string{"model": c.model}, &show); err != nil {
		return window.Info{}, err
	}
	if n := numCtx(show.Parameters); n > 0 {
		return window.Info{Tokens: n, From: window.FromOllama}, nil
	}
	for k, v := range show.ModelInfo {
		if !strings.HasSuffix(k, ".context_length") {
			continue
		}
		if n, err := strconv.Atoi(string(v)); err == nil && n > 0 {
			return window.Info{Tokens: min(n, ollamaDefaultWindow), From: window.FromOllama}, nil
		}
	}
	return window.Info{}, nil
}

// numCtx reads num_ctx from Ollama's parameters, one "name value" a line.
func numCtx(params string) int {
	for line := range strings.SplitSeq(params, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil {
				return n
			}
		}
	}
	return 0
}
