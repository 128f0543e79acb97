package scripted

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/nightshift-dev/nightshift/llm"
)

// The exported names of this file are for what stands in front of a real
// provider or plays one back (the fault proxy, internal/proxy, and recorded
// sessions, internal/cassette): they read a call the way the simulator reads
// it, identify it the way a scenario matches it, and answer errors in the
// simulator's vocabulary, so that the three speak of requests alike.

// Route is what a request path asks of one of the two APIs.
type Route struct {
	// Wire is "anthropic" or "openai"; "" for a path of neither API.
	Wire string
	// Kind is "call" (a model call: Anthropic messages, OpenAI chat
	// completions), "count_tokens", "models", or "" for another path.
	Kind string
}

// Call reports whether the route is a model call.
func (r Route) Call() bool { return r.Kind == "call" }

// RouteOf says which API and which route a request is for, from its path
// (only the end of the path counts, so that a base URL with a prefix,
// /api/v1/chat/completions, is still OpenAI's chat completions) and, for
// the model listing both APIs share, from the anthropic-version header
// Anthropic's clients send.
func RouteOf(path string, h http.Header) Route {
	switch {
	case strings.HasSuffix(path, "/messages/count_tokens"):
		return Route{Wire: string(wireAnthropic), Kind: "count_tokens"}
	case strings.HasSuffix(path, "/messages"):
		return Route{Wire: string(wireAnthropic), Kind: "call"}
	case strings.HasSuffix(path, "/chat/completions"):
		return Route{Wire: string(wireOpenAI), Kind: "call"}
	case strings.HasSuffix(path, "/models") || strings.Contains(path, "/models/"):
		w := wireOpenAI
		if h.Get("anthropic-version") != "" || h.Get("x-api-key") != "" {
			w = wireAnthropic
		}
		return Route{Wire: string(w), Kind: "models"}
	}
	return Route{}
}

// Call is a model call (or a token count) read from its wire.
type Call struct {
	// Route is the request's route.
	Route Route
	// Request is the call as the in-process model would see it.
	Request *llm.Request
	// Stream is the request's "stream": true.
	Stream bool
}

// ReadCall reads the body of a request to route: a model call or a token
// count, of either API. Unlike the simulator, it does not refuse fields it
// does not know, since a real provider may accept them: it is for reading
// traffic, not for judging it.
func ReadCall(route Route, body []byte) (*Call, error) {
	c := &Call{Route: route}
	switch {
	case route.Wire == string(wireAnthropic) && (route.Kind == "call" || route.Kind == "count_tokens"):
		var in anthropicRequest
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		req, _, err := in.request()
		if err != nil {
			return nil, err
		}
		c.Request, c.Stream = req, in.Stream
	case route.Wire == string(wireOpenAI) && route.Kind == "call":
		req, opts, err := openaiDialect{}.decode(body)
		if err != nil {
			return nil, err
		}
		c.Request, c.Stream = req, opts.stream
	default:
		return nil, fmt.Errorf("not a model call: %s %s", route.Wire, route.Kind)
	}
	return c, nil
}

// Position is the call's position in its conversation, as a scenario's
// turns count it: the number of assistant messages it already holds.
func (c *Call) Position() int { return position(c.Request) }

// Fingerprint identifies the call's conversation: its system prompt and
// every message, as a scenario's attempt counters key "the same call made
// again".
func (c *Call) Fingerprint() [sha256.Size]byte { return fingerprint(c.Request) }

// WriteError answers with an error of status in the format of wire
// ("anthropic" or "openai"), body's type and message defaulting as a
// scenario's status faults default them, with the request-ID header of
// that wire. A 529 goes out on the OpenAI wire as 503, as a scenario's
// does.
func WriteError(w http.ResponseWriter, wireName string, status int, body ErrorBody) {
	var d dialect = anthropicDialect{}
	if wireName == string(wireOpenAI) {
		d = openaiDialect{}
	}
	rid := newID("req_", 24)
	w.Header().Set(d.requestIDHeader(), rid)
	d.writeError(w, status, body.withDefaults(status, d.wire()), rid)
}
