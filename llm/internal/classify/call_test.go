package classify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/redact"
)

const secret = "sk-test-SECRET-42"

func response(status int, body string, header http.Header) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
}

func TestCallErrorClassifies(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()
	tests := []struct {
		name string
		ctx  context.Context
		call Call
		err  error
		want llm.Class
	}{
		{"the caller's cancel wins over what the transport said", canceled, Call{}, io.ErrUnexpectedEOF, llm.Canceled},
		{"an error status is read with its body", bg, Call{Response: response(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, nil)}, errors.New("sdk"), llm.Overloaded},
		{"a 400 about credits is quota", bg, Call{Response: response(400, `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low"}}`, nil)}, errors.New("sdk"), llm.Quota},
		{"an error event mid-stream is read by its type", bg, Call{Response: response(200, "", nil), StreamError: []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}`)}, errors.New("sdk"), llm.RateLimited},
		{"a deadline is a timeout", bg, Call{}, fmt.Errorf("post: %w", context.DeadlineExceeded), llm.Timeout},
		{"an unexpected EOF is a connection failure", bg, Call{Response: response(200, "", nil)}, fmt.Errorf("read: %w", io.ErrUnexpectedEOF), llm.Connection},
		{"an undecodable reply is malformed", bg, Call{Response: response(200, "", nil)}, errors.New("expected destination type"), llm.Malformed},
		{"an unknown failure without a reply is a connection failure", bg, Call{}, errors.New("something"), llm.Connection},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.call.Provider = "test"
			if got := tt.call.Error(tt.ctx, tt.err).Class; got != tt.want {
				t.Errorf("class = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCallErrorReadsRetryAfterAgainstNow(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(7*time.Second).Format(http.TimeFormat))
	e := Call{Response: response(429, `{}`, h), Now: now}.Error(context.Background(), errors.New("sdk"))
	if e.RetryAfter != 7*time.Second {
		t.Errorf("retry after = %v, want 7s", e.RetryAfter)
	}
}

func TestCallErrorNeverShowsTheSecret(t *testing.T) {
	tests := []struct {
		name string
		call Call
		err  error
	}{
		{"in a status body", Call{Response: response(401, `{"error":{"message":"bad key `+secret+`"}}`, nil)}, errors.New("sdk")},
		{"in a transport error", Call{}, fmt.Errorf("dial with %s: %w", secret, io.EOF)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.call.Secret = secret
			e := tt.call.Error(context.Background(), tt.err)
			for _, s := range []string{e.Error(), fmt.Sprintf("%#v", e), fmt.Sprintf("%+v", e.Err)} {
				if strings.Contains(s, secret) {
					t.Errorf("secret shown: %s", s)
				}
			}
			if tt.call.Response == nil && !errors.Is(e, io.EOF) {
				t.Errorf("redaction hid the underlying error from errors.Is")
			}
		})
	}
}

// A Secret too short to be a key (a test's or a typo's "t") is not
// masked: masking it mangled every message (`scrip[redacted]ed 529`).
// The shortest masked is the redact package's.
func TestAShortSecretLeavesMessagesAlone(t *testing.T) {
	if minSecret != redact.MinLen {
		t.Fatalf("minSecret %d, redact.MinLen %d: the two rules differ", minSecret, redact.MinLen)
	}
	for _, key := range []string{"t", strings.Repeat("k", minSecret-1)} {
		c := Call{Secret: key, Response: response(529, `{"error":{"type":"overloaded_error","message":"scripted 529 kkkkkkk"}}`, nil)}
		if e := c.Error(context.Background(), errors.New("sdk")); !strings.Contains(e.Error(), "scripted 529 kkkkkkk") {
			t.Errorf("key %q: %s", key, e.Error())
		}
	}
}

// Regression (issue 25): the error body's message was cut to 500 bytes
// before the key was taken out of it, and the part of a key that
// straddled the cut was matched by nothing.
func TestAKeyAcrossTheMessagesCutIsTakenOutBeforeTheCut(t *testing.T) {
	long := "sk-ant-api03-" + strings.Repeat("Zq9xW3vB7nK2", 8)
	for _, stream := range []bool{false, true} {
		body := `{"error":{"type":"authentication_error","message":"` + strings.Repeat("d", maxMessage-40) + " invalid x-api-key " + long + `"}}`
		c := Call{Secret: long, Response: response(401, body, nil)}
		if stream {
			c = Call{Secret: long, StreamError: []byte(body)}
		}
		e := c.Error(context.Background(), errors.New("sdk"))
		if strings.Contains(e.Message, long[:6]) || !strings.Contains(e.Message, "invalid x-api-key [redacted]") {
			t.Errorf("stream %v: message %q", stream, e.Message)
		}
	}
}
