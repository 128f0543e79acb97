package cassette_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/internal/cassette"
	"github.com/nightshift-dev/nightshift/redact"
)

const body = `{"model":"claude-sonnet-4-5","max_tokens":100,"system":"You are terse.","messages":[{"role":"user","content":"%s"}]}`

func request(text string) *http.Request {
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(strings.Replace(body, "%s", text, 1)))
	r.Header.Set("anthropic-version", "2023-06-01")
	return r
}

func digest(text string) cassette.Request {
	r := request(text)
	b, _ := io.ReadAll(r.Body)
	return cassette.Digest(r, b)
}

// write makes a cassette of the exchanges, through a Writer.
func write(t *testing.T, exs ...cassette.Exchange) *cassette.Cassette {
	t.Helper()
	var buf bytes.Buffer
	w, err := cassette.NewWriter(&buf, cassette.Header{Upstream: "https://api.anthropic.com", Recorded: time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range exs {
		if err := w.Write(ex); err != nil {
			t.Fatal(err)
		}
	}
	c, err := cassette.Read(&buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	return c
}

func reply(text string) cassette.Response {
	return cassette.Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: `{"text":"` + text + `"}`}
}

func get(t *testing.T, srv *httptest.Server, text string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/messages", strings.NewReader(strings.Replace(body, "%s", text, 1)))
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestRepliesAreMatchedAsAScenarioMatchesThem(t *testing.T) {
	c := write(t,
		cassette.Exchange{N: 2, Request: digest("hello"), Response: reply("second attempt")},
		cassette.Exchange{N: 1, Request: digest("hello"), Response: cassette.Response{Status: 529, Body: `{"type":"error"}`}},
		cassette.Exchange{N: 3, Request: digest("bye"), Response: reply("bye to you")},
	)
	var log bytes.Buffer
	srv := httptest.NewServer(cassette.NewServer(c, cassette.ServerConfig{Log: &log}))
	defer srv.Close()

	t.Run("the same conversation gets its attempts in the order they were asked, the last repeating", func(t *testing.T) {
		for i, want := range []int{529, 200, 200} {
			if status, _ := get(t, srv, "hello"); status != want {
				t.Errorf("call %d: status %d, want %d", i+1, status, want)
			}
		}
	})
	t.Run("another conversation gets its own", func(t *testing.T) {
		if _, b := get(t, srv, "bye"); !strings.Contains(b, "bye to you") {
			t.Errorf("got %s", b)
		}
	})
	t.Run("a conversation that differs only in its text gets the exchange of its place", func(t *testing.T) {
		// Position 0, the same system prompt: the place's exchanges in
		// order, after those matched by their conversation.
		if status, b := get(t, srv, "something else"); status != 529 {
			t.Errorf("got %d %s, want the place's first exchange (the 529)", status, b)
		}
		if !strings.Contains(log.String(), "same position 0 and system prompt, 1 of 3") {
			t.Errorf("the log does not say how it matched:\n%s", log.String())
		}
	})
	t.Run("a request of no recorded place is a 400 that says so", func(t *testing.T) {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/chat/completions", strings.NewReader(`{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var e struct {
			Error struct{ Message, Type string }
		}
		json.Unmarshal(b, &e)
		if resp.StatusCode != 400 || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, "no recorded exchange matches") {
			t.Errorf("%d %s", resp.StatusCode, b)
		}
	})
}

func TestAStreamIsPlayedEventByEventAndEndsAsItEnded(t *testing.T) {
	events := []cassette.Event{
		{AtMS: 1, Data: "event: message_start\ndata: {\"type\":\"message_start\"}\n\n"},
		{AtMS: 2, Data: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n"},
	}
	c := write(t, cassette.Exchange{N: 1, Request: digest("hello"), Response: cassette.Response{
		Status: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Events: events, End: cassette.EndReset}})
	srv := httptest.NewServer(cassette.NewServer(c, cassette.ServerConfig{}))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/messages", request("hello").Body)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Error("the reply ended whole, want a reset")
	}
	if string(b) != events[0].Data+events[1].Data {
		t.Errorf("got %q", b)
	}
}

func TestAWriterRedactsAndLeavesTheAccountsHeadersOut(t *testing.T) {
	var buf bytes.Buffer
	w, err := cassette.NewWriter(&buf, cassette.Header{Upstream: "https://me:pw@example.com"}, redact.New("sk-made-up-secret-1"))
	if err != nil {
		t.Fatal(err)
	}
	w.AddSecrets("sk-made-up-secret-2")
	err = w.Write(cassette.Exchange{N: 1, Request: cassette.Request{Method: "GET", Path: "/v1/models/sk-made-up-secret-1"}, Response: cassette.Response{
		Status: 200,
		Header: http.Header{"Set-Cookie": {"a=b"}, "X-Auth-Token": {"t"}, "Request-Id": {"req_1 sk-made-up-secret-2"}, "Openai-Organization": {"org-1"}},
		Body:   "sk-made-up-secret-1 and sk-made-up-secret-2",
		Events: []cassette.Event{{Data: "data: sk-made-up-secret-2\n\n"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"sk-made-up-secret", ":pw@", "Set-Cookie", "X-Auth-Token", "org-1"} {
		if strings.Contains(out, bad) {
			t.Errorf("the cassette holds %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, `"Request-Id":["req_1 [redacted]"]`) {
		t.Errorf("a kept header lost its value or its redaction:\n%s", out)
	}
}

func TestABadCassetteIsNamed(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "the file is empty"},
		{`{"n":1}` + "\n", "line 1: not a cassette header"},
		{`{"cassette":2}` + "\n", "version 2"},
		{`{"cassette":1}` + "\n" + `{"n":1,"bogus":true}` + "\n", `line 2: json: unknown field "bogus"`},
	} {
		_, err := cassette.Read(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.in, err, c.want)
		}
	}
}
