package scripted_test

// The simulator must look like the real APIs to the official SDKs in
// everything a client could notice. Each test here is named after a way it
// once did not (issue 17), and checks what the SDK makes of the bytes.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

var requestID = regexp.MustCompile(`^req_[A-Za-z0-9]{24}$`)

func TestErrorRepliesCarryARequestID(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name+": Anthropic: the request-id header and the body's request_id", func(t *testing.T) {
			hs, _ := startServer(t, `turns: [{status: 529}]`, scripted.ServerConfig{})
			_, _, err := callAnthropic(t.Context(), anthropicClient(hs.URL), anthropicParams(), mode.stream)
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v", err)
			}
			if !requestID.MatchString(apiErr.RequestID) {
				t.Errorf("RequestID = %q; want req_ and 24 characters", apiErr.RequestID)
			}
			var body struct {
				RequestID string `json:"request_id"`
			}
			if err := json.Unmarshal([]byte(apiErr.RawJSON()), &body); err != nil || body.RequestID != apiErr.RequestID {
				t.Errorf("body request_id = %q, header %q (%v)", body.RequestID, apiErr.RequestID, err)
			}
		})
		t.Run(mode.name+": OpenAI: the x-request-id header", func(t *testing.T) {
			hs, _ := startServer(t, `turns: [{status: 500}]`, scripted.ServerConfig{})
			_, _, err := callOpenAI(t.Context(), openaiClient(hs.URL), openaiParams(), mode.stream)
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v", err)
			}
			if id := apiErr.Response.Header.Get("x-request-id"); !requestID.MatchString(id) {
				t.Errorf("x-request-id = %q", id)
			}
		})
	}
	t.Run("successful replies carry one too, and no two are alike", func(t *testing.T) {
		hs, _ := startServer(t, `{loop: true, turns: [{text: ok}]}`, scripted.ServerConfig{})
		c := anthropicClient(hs.URL)
		var ids []string
		for range 2 {
			m, err := c.Messages.New(t.Context(), anthropicParams())
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, m.ID)
		}
		if ids[0] == ids[1] || !strings.HasPrefix(ids[0], "msg_") {
			t.Errorf("message ids = %q", ids)
		}
	})
}

func TestToolCallIDsHaveTheirProvidersShape(t *testing.T) {
	const yaml = `{loop: true, turns: [{tool_calls: [{name: a}, {name: b}]}]}`
	for _, mode := range modes {
		t.Run(mode.name+": OpenAI's are call_…, never toolu_", func(t *testing.T) {
			hs, _ := startServer(t, yaml, scripted.ServerConfig{})
			c := openaiClient(hs.URL)
			var ids []string
			for range 2 {
				r, _, err := callOpenAI(t.Context(), c, openaiParams(), mode.stream)
				if err != nil {
					t.Fatal(err)
				}
				for _, tc := range r.Choices[0].Message.ToolCalls {
					ids = append(ids, tc.ID)
				}
			}
			checkIDs(t, ids, `^call_[A-Za-z0-9]{24}$`)
		})
		t.Run(mode.name+": Anthropic's are toolu_…", func(t *testing.T) {
			hs, _ := startServer(t, yaml, scripted.ServerConfig{})
			c := anthropicClient(hs.URL)
			var ids []string
			for range 2 {
				m, _, err := callAnthropic(t.Context(), c, anthropicParams(), mode.stream)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range m.Content {
					ids = append(ids, b.ID)
				}
			}
			checkIDs(t, ids, `^toolu_[A-Za-z0-9]{24}$`)
		})
	}
}

// checkIDs wants 4 ids of the given shape, all different (the same ID in
// two replies would pair a result with the wrong call).
func checkIDs(t *testing.T, ids []string, shape string) {
	t.Helper()
	re := regexp.MustCompile(shape)
	for _, id := range ids {
		if !re.MatchString(id) {
			t.Errorf("id %q does not match %s", id, shape)
		}
	}
	if len(ids) != 4 || len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 4 {
		t.Errorf("ids = %q; want 4 different ones", ids)
	}
}

func TestOpenAIAnswersNChoices(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name+": n: 2 gets two choices, and both are billed", func(t *testing.T) {
			hs, _ := startServer(t, `turns: [{text: "Two ways to say it.", usage: {input: 10, output: 5}}]`, scripted.ServerConfig{})
			p := openaiParams()
			p.N = openai.Int(2)
			r, _, err := callOpenAI(t.Context(), openaiClient(hs.URL), p, mode.stream)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ch := range r.Choices {
				got = append(got, ch.Message.Content+" "+ch.FinishReason)
			}
			if diff := cmp.Diff([]string{"Two ways to say it. stop", "Two ways to say it. stop"}, got); diff != "" {
				t.Errorf("choices (-want +got):\n%s", diff)
			}
			if r.Usage.CompletionTokens != 10 {
				t.Errorf("completion tokens = %d; want 2 × 5", r.Usage.CompletionTokens)
			}
		})
	}
	for _, tt := range []struct {
		n    int64
		code string
	}{{0, "integer_below_min_value"}, {129, "integer_above_max_value"}} {
		t.Run(fmt.Sprintf("n: %d is refused as the API refuses it", tt.n), func(t *testing.T) {
			hs, _ := startServer(t, `turns: [{text: hi}]`, scripted.ServerConfig{})
			p := openaiParams()
			p.N = openai.Int(tt.n)
			c := openaiClient(hs.URL)
			_, err := c.Chat.Completions.New(t.Context(), p)
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v", err)
			}
			got := []any{apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Param}
			if diff := cmp.Diff([]any{400, "invalid_request_error", tt.code, "n"}, got); diff != "" {
				t.Errorf("status, type, code, param (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModelsAndCountTokensAnswer(t *testing.T) {
	hs, _ := startServer(t, `turns: [{text: hi}]`, scripted.ServerConfig{})
	t.Run("Anthropic lists models, gets one, and refuses an unknown one", func(t *testing.T) {
		c := anthropicClient(hs.URL)
		page, err := c.Models.List(t.Context(), anthropic.ModelListParams{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range page.Data {
			ids = append(ids, m.ID)
		}
		if !slices.Contains(ids, "scripted") || !slices.Contains(ids, "claude-sonnet-5-5") || page.HasMore {
			t.Errorf("models = %q, has_more %t", ids, page.HasMore)
		}
		if m, err := c.Models.Get(t.Context(), "claude-sonnet-5-5", anthropic.ModelGetParams{}); err != nil || m.ID != "claude-sonnet-5-5" {
			t.Errorf("get = %+v, %v", m, err)
		}
		_, err = c.Models.Get(t.Context(), "claude-nope", anthropic.ModelGetParams{})
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Type() != "not_found_error" {
			t.Errorf("unknown model: %v", err)
		}
	})
	t.Run("Anthropic counts a request's tokens without playing a turn", func(t *testing.T) {
		c := anthropicClient(hs.URL)
		n, err := c.Messages.CountTokens(t.Context(), anthropic.MessageCountTokensParams{
			Model:    "claude-test",
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(strings.Repeat("word ", 40)))},
		})
		if err != nil {
			t.Fatal(err)
		}
		if n.InputTokens < 40 {
			t.Errorf("input tokens = %d", n.InputTokens)
		}
		// The scenario's one turn is still there to play.
		if _, err := c.Messages.New(t.Context(), anthropicParams()); err != nil {
			t.Errorf("the turn after counting: %v", err)
		}
	})
	t.Run("OpenAI lists models, gets one, and refuses an unknown one", func(t *testing.T) {
		c := openaiClient(hs.URL)
		page, err := c.Models.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range page.Data {
			ids = append(ids, m.ID)
		}
		if !slices.Contains(ids, "scripted") || !slices.Contains(ids, "gpt-6-sol") || slices.Contains(ids, "claude-sonnet-5-5") {
			t.Errorf("models = %q", ids)
		}
		if m, err := c.Models.Get(t.Context(), "gpt-6-sol"); err != nil || m.ID != "gpt-6-sol" {
			t.Errorf("get = %+v, %v", m, err)
		}
		_, err = c.Models.Get(t.Context(), "gpt-nope")
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Code != "model_not_found" {
			t.Errorf("unknown model: %v", err)
		}
	})
}

func TestAnthropicRefusesUnknownFields(t *testing.T) {
	tests := []struct {
		name string
		opt  aoption.RequestOption
		want string
	}{
		{"a thread field is an error, not a new conversation", aoption.WithJSONSet("thread", "t_1"), "thread: Extra inputs are not permitted"},
		{"a field in a message is an error too", aoption.WithJSONSet("messages.0.name", "Init"), "messages.0.name: Extra inputs are not permitted"},
		{"a required field left out is named", aoption.WithJSONDel("max_tokens"), "max_tokens: Field required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, sim := startServer(t, `turns: [{text: hi}]`, scripted.ServerConfig{})
			c := anthropicClient(hs.URL)
			_, err := c.Messages.New(t.Context(), anthropicParams(), tt.opt)
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error = %v; want the API's 400", err)
			}
			var body struct {
				Error struct{ Type, Message string } `json:"error"`
			}
			json.Unmarshal([]byte(apiErr.RawJSON()), &body)
			got := []any{apiErr.StatusCode, body.Error.Type, body.Error.Message}
			if diff := cmp.Diff([]any{400, "invalid_request_error", tt.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if n := len(sim.Requests()); n != 0 {
				t.Errorf("the refused request played a turn (%d recorded)", n)
			}
		})
	}
}

func TestAttemptCountersAreNotSharedBetweenWireFormats(t *testing.T) {
	// The same conversation, sent once in each format: two clients, each
	// at its first attempt, not one client retrying.
	hs, _ := startServer(t, `turns: [{attempts: [{status: 500}, {text: ok}]}]`, scripted.ServerConfig{})
	ac, oc := anthropicClient(hs.URL), openaiClient(hs.URL)
	_, errA := ac.Messages.New(t.Context(), anthropicParams())
	_, errO := oc.Chat.Completions.New(t.Context(), openaiParams())
	if errA == nil || errO == nil {
		t.Errorf("first attempts: anthropic %v, openai %v; want the scripted 500 for both", errA, errO)
	}
}

func TestStreamErrorMidStream(t *testing.T) {
	const yaml = `turns: [{text: "The first words arrive, then the stream fails.", stream_error: {}}]`
	t.Run("Anthropic: events, then event: error, typed overloaded_error", func(t *testing.T) {
		hs, _ := startServer(t, yaml, scripted.ServerConfig{})
		_, events, err := callAnthropic(t.Context(), anthropicClient(hs.URL), anthropicParams(), true)
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.Type() != "overloaded_error" {
			t.Fatalf("error = %v (%T); want an overloaded_error event", err, err)
		}
		if events < 2 {
			t.Errorf("%d events before the error; want the first ones sent", events)
		}
	})
	t.Run("OpenAI: chunks, then data: {error}", func(t *testing.T) {
		hs, _ := startServer(t, yaml, scripted.ServerConfig{})
		_, chunks, err := callOpenAI(t.Context(), openaiClient(hs.URL), openaiParams(), true)
		var se *ssestream.StreamError
		if !errors.As(err, &se) {
			t.Fatalf("error = %v (%T); want a stream error", err, err)
		}
		var ev struct {
			Error struct{ Type string } `json:"error"`
		}
		if json.Unmarshal(se.Event.Data, &ev); ev.Error.Type != "server_error" {
			t.Errorf("event = %s", se.Event.Data)
		}
		if chunks == 0 {
			t.Errorf("no chunks before the error")
		}
	})
	t.Run("a request that does not stream gets the error's status", func(t *testing.T) {
		hs, _ := startServer(t, `turns: [{stream_error: {type: rate_limit_error}}]`, scripted.ServerConfig{})
		c := anthropicClient(hs.URL)
		_, err := c.Messages.New(t.Context(), anthropicParams())
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 {
			t.Errorf("error = %v; want a 429", err)
		}
	})
	t.Run("in process it is what a streaming provider reports: no status, classified by type", func(t *testing.T) {
		sc, err := scripted.Parse([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		_, err = scripted.New(sc, scripted.Config{}).Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
		var e *llm.Error
		if !errors.As(err, &e) || e.Class != llm.Overloaded || e.Status != 0 || e.Type != "overloaded_error" {
			t.Errorf("error = %#v", err)
		}
	})
}

func TestCacheTokensTravelOnBothWires(t *testing.T) {
	const yaml = `{loop: true, turns: [{text: ok, usage: {input: 1000, output: 10, cache_write: 200, cache_read: 700}}]}`
	for _, mode := range modes {
		t.Run(mode.name+": Anthropic: input_tokens without the cache, the cache's apart", func(t *testing.T) {
			hs, _ := startServer(t, yaml, scripted.ServerConfig{})
			m, _, err := callAnthropic(t.Context(), anthropicClient(hs.URL), anthropicParams(), mode.stream)
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{m.Usage.InputTokens, m.Usage.CacheCreationInputTokens, m.Usage.CacheReadInputTokens, m.Usage.OutputTokens}
			if diff := cmp.Diff([]int64{100, 200, 700, 10}, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
		t.Run(mode.name+": OpenAI: prompt_tokens with the cache, cached_tokens named", func(t *testing.T) {
			hs, _ := startServer(t, yaml, scripted.ServerConfig{})
			r, _, err := callOpenAI(t.Context(), openaiClient(hs.URL), openaiParams(), mode.stream)
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{r.Usage.PromptTokens, r.Usage.PromptTokensDetails.CachedTokens, r.Usage.CompletionTokens}
			if diff := cmp.Diff([]int64{1000, 700, 10}, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnknownRoutesAnswerInTheClientsFormat(t *testing.T) {
	hs, _ := startServer(t, `turns: [{text: hi}]`, scripted.ServerConfig{})
	for _, tt := range []struct {
		name   string
		header http.Header
		want   string
	}{
		{"an Anthropic client gets Anthropic's envelope", http.Header{"Anthropic-Version": {"2023-06-01"}}, `"type":"error"`},
		{"any other gets OpenAI's", http.Header{"Authorization": {"Bearer x"}}, `"param":null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, hs.URL+"/v1/nowhere", nil)
			req.Header = tt.header
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != 404 || !strings.Contains(string(b), tt.want) {
				t.Errorf("%d %s", res.StatusCode, b)
			}
		})
	}
}

// TestErrorBodiesHaveTheRealAPIsShape compares the raw bytes of the
// simulator's error bodies with the real APIs': the same keys, holding
// values of the same kinds.
func TestErrorBodiesHaveTheRealAPIsShape(t *testing.T) {
	tests := []struct {
		name, path string
		header     http.Header
		body       string
		real       string
	}{
		{
			// A 400 the Messages API sent, as reported in
			// github.com/Wei-Shaw/claude-relay-service/issues/667.
			name: "Anthropic", path: "/v1/messages", header: http.Header{"Anthropic-Version": {"2023-06-01"}},
			body: `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}],"thread":"t"}`,
			real: `{"type":"error","error":{"type":"invalid_request_error","message":"tools.3.custom.input_examples: Extra inputs are not permitted"},"request_id":"req_011CV9Ebv6mAPLM4YvfvaUcx"}`,
		},
		{
			// The four fields openai-go v3.98.0's apierror.Error requires,
			// null where the API has nothing to say.
			name: "OpenAI", path: "/v1/chat/completions", header: http.Header{"Authorization": {"Bearer k"}},
			body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"n":0}`,
			real: `{"error":{"message":"Invalid 'n': integer below minimum value.","type":"invalid_request_error","param":"n","code":"integer_below_min_value"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, _ := startServer(t, `turns: [{text: hi}]`, scripted.ServerConfig{})
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL+tt.path, strings.NewReader(tt.body))
			req.Header = tt.header
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			var got, want any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			json.Unmarshal([]byte(tt.real), &want)
			if diff := cmp.Diff(shape(want), shape(got)); diff != "" {
				t.Errorf("shape (-real +simulator):\n%s\nbody: %s", diff, raw)
			}
		})
	}
}

// shape replaces every value of a decoded JSON document by its kind.
func shape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = shape(x)
		}
		return out
	case []any:
		if len(v) == 0 {
			return []any{}
		}
		return []any{shape(v[0])}
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%T", v)
	}
}
