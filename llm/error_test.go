package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
)

func TestClassifyStatus(t *testing.T) {
	for _, tc := range []struct {
		name          string
		status        int
		typ, msg      string
		want          llm.Class
		wantRetryable bool
	}{
		{"a plain 429 is a rate limit, retried", 429, "rate_limit_error", "slow down", llm.RateLimited, true},
		{"529 is Anthropic's overload, retried", 529, "overloaded_error", "", llm.Overloaded, true},
		{"503 is an overload, retried", 503, "", "", llm.Overloaded, true},
		{"500 is transient, retried", 500, "", "", llm.Transient, true},
		{"502 is transient, retried", 502, "", "", llm.Transient, true},
		{"504 is transient, retried", 504, "", "", llm.Transient, true},
		{"408 is a timeout, retried", 408, "", "", llm.Timeout, true},
		{"400 is wrong content, not retried", 400, "invalid_request_error", "bad", llm.BadRequest, false},
		{"401 is auth, not retried", 401, "authentication_error", "", llm.Auth, false},
		{"403 is auth, not retried", 403, "permission_error", "", llm.Auth, false},
		{"404 is wrong content, not retried", 404, "not_found_error", "", llm.BadRequest, false},
		{"413 is wrong content, not retried", 413, "request_too_large", "", llm.BadRequest, false},
		{"422 is wrong content, not retried", 422, "", "", llm.BadRequest, false},
		{"OpenAI's insufficient_quota 429 is quota, not retried", 429, "insufficient_quota", "You exceeded your current quota", llm.Quota, false},
		{"Anthropic's credit balance 400 is quota, not retried", 400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API", llm.Quota, false},
		{"a spend limit 429 is quota", 429, "", "You have reached your spend limit", llm.Quota, false},
		{"402 is quota", 402, "", "", llm.Quota, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := llm.ClassifyStatus(tc.status, tc.typ, tc.msg)
			if got != tc.want || got.Retryable() != tc.wantRetryable {
				t.Errorf("ClassifyStatus(%d, %q, %q) = %s (retryable %v), want %s (retryable %v)",
					tc.status, tc.typ, tc.msg, got, got.Retryable(), tc.want, tc.wantRetryable)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"no header gives zero", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"retry-after-ms wins over retry-after", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{"an HTTP date is relative to now", http.Header{"Retry-After": {now.Add(3 * time.Second).Format(http.TimeFormat)}}, 3 * time.Second},
		{"a date in the past gives zero", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"garbage gives zero", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative gives zero", http.Header{"Retry-After": {"-1"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := llm.RetryAfter(tc.h, now); got != tc.want {
				t.Errorf("RetryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestError(t *testing.T) {
	t.Run("every *Error matches ErrProvider and keeps its class through wrapping", func(t *testing.T) {
		err := fmt.Errorf("anthropic: messages: %w", &llm.Error{Provider: "anthropic", Class: llm.Overloaded, Status: 529})
		if !errors.Is(err, llm.ErrProvider) || llm.ClassOf(err) != llm.Overloaded {
			t.Errorf("Is = %v, ClassOf = %s", errors.Is(err, llm.ErrProvider), llm.ClassOf(err))
		}
	})
	t.Run("a quota error says it is a quota problem", func(t *testing.T) {
		msg := (&llm.Error{Provider: "openai", Class: llm.Quota, Status: 429, Message: "You exceeded your current quota"}).Error()
		for _, want := range []string{"openai", "quota", "429", "You exceeded your current quota"} {
			if !contains(msg, want) {
				t.Errorf("message %q lacks %q", msg, want)
			}
		}
	})
	t.Run("context errors are classed without an *Error", func(t *testing.T) {
		if c := llm.ClassOf(context.Canceled); c != llm.Canceled {
			t.Errorf("canceled: %s", c)
		}
		if c := llm.ClassOf(context.DeadlineExceeded); c != llm.Timeout {
			t.Errorf("deadline: %s", c)
		}
		if c := llm.ClassOf(errors.New("disk full")); c != "" {
			t.Errorf("other: %q", c)
		}
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
