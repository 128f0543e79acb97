package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
)

func cases() []testCase {
	return []testCase{
		{"a text reply is one text block that ends the turn", textReply},
		{"tool calls keep their order, ids, names and inputs", toolCalls},
		{"tool calls the scenario gave no id get unique ones, which pair the results", generatedIDs},
		{"the conversation, system prompt and tools arrive as sent", conversationArrives},
		{"the request's model and output cap are sent", modelAndCap},
		{"stop reasons map onto llm's", stopReasons},
		{"a refusal keeps its text", refusalText},
		{"cache writes and reads are counted within the input", cacheUsage},
		{"an empty reply is empty, not a failure", emptyReply},
		{"a tool call cut off by max_tokens does not fail the call", cutToolCall},
		{"error statuses are classified, with their status and wait", errorStatuses},
		{"an error keeps the provider's type and message", errorDetail},
		{"an error that echoes the key does not show it", keyNotShown},
		{"the API key is sent", keySent},
		{"a dropped connection is a connection failure", droppedConnection},
		{"a refused connection is a connection failure", refusedConnection},
		{"an error event mid-stream is classified by its type", streamError},
		{"one Generate is one request: no retries of its own", oneRequest},
		{"the caller's cancel is canceled, its deadline a timeout", callersContext},
		{"the response's headers come back", responseHeaders},
		{"concurrent calls are safe", concurrentCalls},
	}
}

func textReply(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{text: "All three notes are about the garden.", usage: {input: 40, output: 17}}]`)
	resp, err := x.generate(t, "Summarise the notes.")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 1 || resp.Content[0].Type != llm.TextBlock || resp.Content[0].Text != "All three notes are about the garden." {
		t.Errorf("content = %+v", resp.Content)
	}
	if resp.StopReason != llm.EndTurn {
		t.Errorf("stop reason = %q, want end_turn", resp.StopReason)
	}
	if resp.Usage.InputTokens != 40 || resp.Usage.OutputTokens != 17 {
		t.Errorf("usage = %+v, want 40 in, 17 out", resp.Usage)
	}
}

func toolCalls(t *testing.T, s *suite) {
	x := s.start(t, `
turns:
  - text: Reading both.
    tool_calls:
      - {id: id_a, name: read_file, input: {path: a.txt}}
      - {id: id_b, name: list_dir, input: {path: ., depth: 2}}
`)
	resp, err := x.generate(t, "Read a.txt and list the folder.")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.ToolUseStop {
		t.Errorf("stop reason = %q, want tool_use", resp.StopReason)
	}
	if got := resp.Message().Text(); got != "Reading both." {
		t.Errorf("text = %q", got)
	}
	uses := resp.Message().ToolUses()
	want := []struct{ id, name, input string }{
		{"id_a", "read_file", `{"path":"a.txt"}`},
		{"id_b", "list_dir", `{"path":".","depth":2}`},
	}
	if len(uses) != len(want) {
		t.Fatalf("tool uses = %+v, want %d", uses, len(want))
	}
	for i, w := range want {
		u := uses[i]
		if u.ID != w.id || u.Name != w.name || !sameJSON(u.Input, []byte(w.input)) {
			t.Errorf("tool use %d = %s %s %s, want %s %s %s", i, u.ID, u.Name, u.Input, w.id, w.name, w.input)
		}
	}
}

func generatedIDs(t *testing.T, s *suite) {
	x := s.start(t, `
turns:
  - tool_calls: [{name: read_file, input: {path: a.txt}}, {name: read_file, input: {path: b.txt}}]
  - tool_calls: [{name: read_file, input: {path: c.txt}}]
  - text: done
`)
	req := &llm.Request{Messages: []llm.Message{llm.UserText("Read the files.")}}
	seen := map[string]bool{}
	for turn := range 2 {
		resp := x.mustGenerate(t, req)
		var results []llm.Block
		for _, u := range resp.Message().ToolUses() {
			if u.ID == "" || seen[u.ID] {
				t.Errorf("turn %d: tool use id %q is empty or seen before", turn, u.ID)
			}
			seen[u.ID] = true
			results = append(results, llm.ToolResult(u.ID, "contents of "+string(u.Input), false))
		}
		req.Messages = append(req.Messages, resp.Message(), llm.Message{Role: llm.User, Content: results})
	}
	x.mustGenerate(t, req)
	// What the server received last pairs every result with its call.
	got := x.Requests()
	last := got[len(got)-1]
	calls := map[string]bool{}
	for _, m := range last.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case llm.ToolUseBlock:
				calls[b.ID] = true
			case llm.ToolResultBlock:
				if !calls[b.ToolUseID] {
					t.Errorf("the server got a result for %q, which no earlier call has", b.ToolUseID)
				}
			}
		}
	}
	if len(calls) != 3 {
		t.Errorf("the server got %d distinct calls back, want 3", len(calls))
	}
}

func conversationArrives(t *testing.T, s *suite) {
	x := s.start(t, `{loop: true, turns: [{text: done}]}`)
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	req := &llm.Request{
		System: "You are careful.",
		Messages: []llm.Message{
			llm.UserText("Read a.txt and b.txt."),
			{Role: llm.Assistant, Content: []llm.Block{
				llm.Text("Reading."),
				llm.ToolUse("id_1", "read_file", json.RawMessage(`{"path":"a.txt"}`)),
				llm.ToolUse("id_2", "read_file", json.RawMessage(`{"path":"b.txt"}`)),
			}},
			{Role: llm.User, Content: []llm.Block{
				llm.ToolResult("id_1", "alpha", false),
				llm.ToolResult("id_2", "ENOENT: b.txt does not exist", true),
			}},
		},
		Tools: []llm.ToolSpec{{Name: "read_file", Description: "Read a file.", InputSchema: schema}},
	}
	x.mustGenerate(t, req)
	got := x.Requests()
	if len(got) != 1 {
		t.Fatalf("the server got %d requests, want 1", len(got))
	}
	in := got[0]
	if in.System != req.System {
		t.Errorf("system = %q, want %q", in.System, req.System)
	}
	if len(in.Tools) != 1 || in.Tools[0].Name != "read_file" || in.Tools[0].Description != "Read a file." || !sameJSON(in.Tools[0].InputSchema, schema) {
		t.Errorf("tools = %+v", in.Tools)
	}
	if len(in.Messages) != 3 {
		t.Fatalf("messages = %+v, want 3", in.Messages)
	}
	if in.Messages[0].Role != llm.User || in.Messages[0].Text() != "Read a.txt and b.txt." {
		t.Errorf("first message = %+v", in.Messages[0])
	}
	a := in.Messages[1]
	uses := a.ToolUses()
	if a.Role != llm.Assistant || a.Text() != "Reading." || len(uses) != 2 ||
		uses[0].ID != "id_1" || !sameJSON(uses[0].Input, []byte(`{"path":"a.txt"}`)) || uses[1].ID != "id_2" {
		t.Errorf("assistant message = %+v", a)
	}
	var results []llm.Block
	for _, b := range in.Messages[2].Content {
		if b.Type == llm.ToolResultBlock {
			results = append(results, b)
		}
	}
	if len(results) != 2 || results[0].ToolUseID != "id_1" || results[0].Text != "alpha" || results[0].IsError ||
		results[1].ToolUseID != "id_2" || !strings.Contains(results[1].Text, "ENOENT: b.txt does not exist") {
		t.Fatalf("tool results = %+v", results)
	}
	// The model must be able to tell the failed result: Anthropic's wire
	// has is_error; Chat Completions has none, so the text must say so.
	failed := results[1]
	switch {
	case s.wire == Anthropic && !failed.IsError:
		t.Errorf("the failed result arrived without is_error")
	case s.wire == OpenAI && !failed.IsError && !strings.Contains(strings.ToLower(failed.Text), "error"):
		t.Errorf("the failed result %q does not say it failed", failed.Text)
	}
}

func modelAndCap(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{text: ok}]`)
	x.mustGenerate(t, &llm.Request{Model: "model-under-test", MaxTokens: 123, Messages: []llm.Message{llm.UserText("hi")}})
	got := x.Requests()[0]
	if got.Model != "model-under-test" || got.MaxTokens != 123 {
		t.Errorf("the server got model %q and cap %d, want model-under-test and 123", got.Model, got.MaxTokens)
	}
}

func stopReasons(t *testing.T, s *suite) {
	stopSeq := llm.StopSequence
	if s.wire == OpenAI {
		// Chat Completions finishes a stop sequence with plain "stop".
		stopSeq = llm.EndTurn
	}
	for _, tt := range []struct {
		stop string
		want llm.StopReason
	}{
		{"end_turn", llm.EndTurn},
		{"max_tokens", llm.MaxTokens},
		{"refusal", llm.Refusal},
		{"stop_sequence", stopSeq},
	} {
		t.Run(tt.stop, func(t *testing.T) {
			x := s.start(t, `turns: [{text: "Some text.", stop: `+tt.stop+`}]`)
			resp, err := x.generate(t, "hi")
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != tt.want {
				t.Errorf("stop reason = %q, want %q", resp.StopReason, tt.want)
			}
		})
	}
	t.Run("tool_use", func(t *testing.T) {
		x := s.start(t, `turns: [{tool_calls: [{name: list_dir}]}]`)
		resp, err := x.generate(t, "hi")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StopReason != llm.ToolUseStop {
			t.Errorf("stop reason = %q, want tool_use", resp.StopReason)
		}
	})
}

func refusalText(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{text: "I can't help with that.", stop: refusal}]`)
	resp, err := x.generate(t, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.Refusal || !strings.Contains(resp.Message().Text(), "I can't help with that.") {
		t.Errorf("reply = %q %q, want the refusal and its text", resp.StopReason, resp.Message().Text())
	}
}

func cacheUsage(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{text: ok, usage: {input: 1000, output: 10, cache_write: 200, cache_read: 700}}]`)
	resp, err := x.generate(t, "hi")
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 1000, OutputTokens: 10, CacheWriteTokens: 200, CacheReadTokens: 700}
	if s.wire == OpenAI {
		want.CacheWriteTokens = 0 // Chat Completions reports none
	}
	if resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

func emptyReply(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{empty: true}]`)
	resp, err := x.generate(t, "hi")
	if err != nil {
		t.Fatalf("an empty reply failed the call: %v", err)
	}
	if resp.Message().Text() != "" || len(resp.Message().ToolUses()) != 0 || resp.StopReason != llm.EndTurn {
		t.Errorf("reply = %+v, want empty, ending the turn", resp)
	}
}

func cutToolCall(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{tool_calls: [{name: write_file, raw_input: '{"path": "a.txt", "content": "the first half'}], stop: max_tokens}]`)
	resp, err := x.generate(t, "write")
	if err != nil {
		t.Fatalf("a cut-off tool call failed the call: %v", err)
	}
	uses := resp.Message().ToolUses()
	if resp.StopReason != llm.MaxTokens || len(uses) != 1 || uses[0].Name != "write_file" {
		t.Errorf("reply = %q %+v, want max_tokens and the write_file call", resp.StopReason, uses)
	}
}

func errorStatuses(t *testing.T, s *suite) {
	overload, quota := "{status: 529}", `{status: 400, error: {message: "Your credit balance is too low to access the Anthropic API."}}`
	overloadStatus, quotaStatus := 529, 400
	if s.wire == OpenAI {
		overload, quota = "{status: 503}", `{status: 429, error: {type: insufficient_quota, message: "You exceeded your current quota"}}`
		overloadStatus, quotaStatus = 503, 429
	}
	tests := []struct {
		name, turn string
		class      llm.Class
		status     int
		wait       time.Duration
	}{
		{"a 429 with retry-after is rate-limited and says how long to wait", `{status: 429, headers: {retry-after: "7"}}`, llm.RateLimited, 429, 7 * time.Second},
		{"retry-after-ms wins over retry-after", `{status: 429, headers: {retry-after: "2", retry-after-ms: "1500"}}`, llm.RateLimited, 429, 1500 * time.Millisecond},
		{"an overload is overloaded", overload, llm.Overloaded, overloadStatus, 0},
		{"a 500 is transient", "{status: 500}", llm.Transient, 500, 0},
		{"a 400 is a bad request", "{status: 400}", llm.BadRequest, 400, 0},
		{"a 404 is a bad request", "{status: 404}", llm.BadRequest, 404, 0},
		{"a 413 is a bad request", "{status: 413}", llm.BadRequest, 413, 0},
		{"a 401 is auth", "{status: 401}", llm.Auth, 401, 0},
		{"a 403 is auth", "{status: 403}", llm.Auth, 403, 0},
		{"a quota refusal is quota, whatever its status", quota, llm.Quota, quotaStatus, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := s.start(t, "turns: ["+tt.turn+"]")
			_, err := x.generate(t, "hi")
			e := mustFail(t, err)
			got := fmt.Sprint(e.Class, e.Status, e.RetryAfter, e.Class.Retryable())
			want := fmt.Sprint(tt.class, tt.status, tt.wait, tt.class.Retryable())
			if got != want {
				t.Errorf("class, status, wait, retryable = %s, want %s (err: %v)", got, want, err)
			}
			if e.Header == nil {
				t.Errorf("the failed response's headers were not kept")
			}
		})
	}
}

func errorDetail(t *testing.T, s *suite) {
	const msg = "This model's maximum context length is 128000 tokens."
	x := s.start(t, `turns: [{status: 400, error: {type: invalid_request_error, code: context_length_exceeded, message: "`+msg+`"}}]`)
	_, err := x.generate(t, "hi")
	e := mustFail(t, err)
	if e.Message != msg {
		t.Errorf("message = %q, want the provider's %q", e.Message, msg)
	}
	// Anthropic's wire carries the type only; OpenAI's a code too, which
	// says more.
	if e.Type != "invalid_request_error" && e.Type != "context_length_exceeded" {
		t.Errorf("type = %q, want the provider's type or code", e.Type)
	}
}

func keyNotShown(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{status: 401, error: {message: "invalid x-api-key: `+apiKey+`"}}]`)
	_, err := x.generate(t, "hi")
	if e := mustFail(t, err); e.Class != llm.Auth {
		t.Errorf("class = %q, want auth", e.Class)
	}
}

func keySent(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{text: ok}]`)
	x.mustGenerate(t, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	x.mu.Lock()
	h := x.headers[0]
	x.mu.Unlock()
	if h.Get("X-Api-Key") != apiKey && h.Get("Authorization") != "Bearer "+apiKey {
		t.Errorf("the key was sent neither as x-api-key nor as a bearer token")
	}
}

func droppedConnection(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{drop: true, text: "This reply is never finished: the line goes dead."}]`)
	_, err := x.generate(t, "hi")
	if e := mustFail(t, err); e.Class != llm.Connection {
		t.Errorf("class = %q, want connection (err: %v)", e.Class, err)
	}
}

func refusedConnection(t *testing.T, s *suite) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // its address now refuses the dial
	m := s.newModel(t, Env{BaseURL: s.baseURL(closed.URL), APIKey: apiKey})
	_, err := m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	if e := mustFail(t, err); e.Class != llm.Connection {
		t.Errorf("class = %q, want connection (err: %v)", e.Class, err)
	}
}

func streamError(t *testing.T, s *suite) {
	// Streaming, the error arrives as an event after the first ones; not
	// streaming, as the status the type stands for. Either way the
	// class is the type's.
	want := llm.Overloaded // Anthropic's overloaded_error
	if s.wire == OpenAI {
		want = llm.Transient // OpenAI's server_error
	}
	x := s.start(t, `turns: [{text: "The first words arrive, then the stream fails.", stream_error: {}}]`)
	_, err := x.generate(t, "hi")
	if e := mustFail(t, err); e.Class != want || !e.Class.Retryable() {
		t.Errorf("class = %q, want %q (err: %v)", e.Class, want, err)
	}
	x = s.start(t, `turns: [{stream_error: {type: rate_limit_error, code: rate_limit_exceeded}}]`)
	_, err = x.generate(t, "hi")
	if e := mustFail(t, err); e.Class != llm.RateLimited {
		t.Errorf("a rate-limit event: class = %q, want rate-limited (err: %v)", e.Class, err)
	}
}

func oneRequest(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{status: 500}]`)
	_, err := x.generate(t, "hi")
	mustFail(t, err)
	if n := x.calls(); n != 1 {
		t.Errorf("the server got %d requests for one Generate, want 1: the retry layer is the only one", n)
	}
}

func callersContext(t *testing.T, s *suite) {
	// The simulator's clock never ends a delay: only the caller's
	// context can end the call.
	const waits = `turns: [{text: late, delay: 1h}]`
	t.Run("a cancel while the call is in flight is canceled", func(t *testing.T) {
		x := s.start(t, waits)
		ctx := x.cancelInFlight(t)
		_, err := x.model.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
		if e := mustFail(t, err); e.Class != llm.Canceled {
			t.Errorf("class = %q, want canceled", e.Class)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("errors.Is(err, context.Canceled) is false")
		}
	})
	t.Run("a deadline that passes is a timeout", func(t *testing.T) {
		x := s.start(t, waits)
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		_, err := x.model.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
		if e := mustFail(t, err); e.Class != llm.Timeout {
			t.Errorf("class = %q, want timeout", e.Class)
		}
	})
}

func responseHeaders(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{text: ok}]`)
	resp, err := x.generate(t, "hi")
	if err != nil {
		t.Fatal(err)
	}
	name := "request-id"
	if s.wire == OpenAI {
		name = "x-request-id"
	}
	if resp.Header.Get(name) == "" {
		t.Errorf("the response's %s header did not come back (headers: %v)", name, resp.Header)
	}
}

func concurrentCalls(t *testing.T, s *suite) {
	x := s.start(t, `turns: [{tool_calls: [{name: list_dir}]}, {text: done}]`)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			req := &llm.Request{Messages: []llm.Message{llm.UserText(fmt.Sprintf("conversation %d", i))}}
			resp, err := x.model.Generate(t.Context(), req)
			if err != nil {
				errs <- err
				return
			}
			uses := resp.Message().ToolUses()
			if len(uses) != 1 {
				errs <- fmt.Errorf("conversation %d: first reply %+v", i, resp.Content)
				return
			}
			req.Messages = append(req.Messages, resp.Message(), llm.Message{Role: llm.User, Content: []llm.Block{llm.ToolResult(uses[0].ID, ".", false)}})
			resp, err = x.model.Generate(t.Context(), req)
			if err != nil {
				errs <- err
				return
			}
			if resp.Message().Text() != "done" {
				errs <- fmt.Errorf("conversation %d: second reply %q", i, resp.Message().Text())
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
