package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Class is the closed classification of provider failures. Every decision
// about a failure (retry it? charge it to what?) reads the class.
type Class string

const (
	// RateLimited: 429 without a quota cause. Wrong timing: retry.
	RateLimited Class = "rate-limited"
	// Overloaded: 529 (Anthropic) or 503. Wrong timing: retry.
	Overloaded Class = "overloaded"
	// Transient: 500, 502, 504. Wrong timing: retry.
	Transient Class = "transient"
	// Timeout: the call timed out (request timeout, 408). Retry.
	Timeout Class = "timeout"
	// Connection: the connection failed or dropped mid-reply. Retry.
	Connection Class = "connection"
	// Quota: a quota, billing, credit or spend refusal, whatever its
	// status. Wrong content (the account, not the moment): never retried.
	Quota Class = "quota"
	// Auth: 401 or 403. Never retried.
	Auth Class = "auth"
	// BadRequest: 400, 404, 413, 422 and other 4xx. Never retried.
	BadRequest Class = "bad-request"
	// Canceled: the caller's context ended. Never retried.
	Canceled Class = "canceled"
	// Malformed: the provider's reply could not be understood. Never
	// retried: the same bytes would come back.
	Malformed Class = "malformed"
)

// Retryable reports whether the class is "wrong timing": a later call with
// the same content may succeed (seed 000, section 4.2).
func (c Class) Retryable() bool {
	switch c {
	case RateLimited, Overloaded, Transient, Timeout, Connection:
		return true
	}
	return false
}

// ErrProvider is the sentinel every *Error matches with errors.Is.
var ErrProvider = errors.New("provider error")

// Error is a classified provider failure.
type Error struct {
	// Provider names the provider ("anthropic", "openai", "scripted").
	Provider string
	Class    Class
	// Status is the HTTP status, or 0 when there was no response.
	Status int
	// Type is the provider's error type or code when it gave one
	// (for example "insufficient_quota", "overloaded_error").
	Type string
	// Message is the provider's message, with any credential removed.
	Message string
	// RetryAfter is the server's requested wait (retry-after-ms or
	// retry-after), or zero.
	RetryAfter time.Duration
	// Header is the failed response's headers, when there was a response.
	Header http.Header
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider)
		b.WriteString(": ")
	}
	b.WriteString(string(e.Class))
	if e.Status != 0 {
		fmt.Fprintf(&b, " (status %d)", e.Status)
	}
	if e.Class == Quota {
		b.WriteString(": quota or billing problem, not retried; check the account's plan, credits and spend limits")
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrProvider) true for every *Error.
func (e *Error) Is(target error) bool { return target == ErrProvider }

// ClassOf returns the class of err: its *Error's class, Canceled for a
// context error, and "" for anything else.
func ClassOf(err error) Class {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	if errors.Is(err, context.Canceled) {
		return Canceled
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Timeout
	}
	return ""
}

// quotaMarkers are the error types and message fragments providers use for
// quota, billing and spend refusals. OpenAI sends 429 insufficient_quota;
// Anthropic sends 400 with "credit balance is too low".
var quotaMarkers = []string{
	"insufficient_quota",
	"billing",
	"credit balance",
	"spend limit",
	"spending limit",
	"quota",
	"exceeded your current",
}

// IsQuotaText reports whether an error type or message names a quota,
// billing or spend refusal.
func IsQuotaText(s string) bool {
	s = strings.ToLower(s)
	for _, m := range quotaMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// ClassifyStatus classifies an HTTP error response. errType and message are
// the provider's error type/code and message, used only to tell quota
// refusals from other 429s and 400s.
func ClassifyStatus(status int, errType, message string) Class {
	if (status == http.StatusTooManyRequests || status == http.StatusBadRequest ||
		status == http.StatusPaymentRequired || status == http.StatusForbidden) &&
		(IsQuotaText(errType) || IsQuotaText(message)) {
		return Quota
	}
	switch {
	case status == http.StatusTooManyRequests:
		return RateLimited
	case status == 529 || status == http.StatusServiceUnavailable:
		return Overloaded
	case status == http.StatusRequestTimeout:
		return Timeout
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return Auth
	case status == http.StatusPaymentRequired:
		return Quota
	case status >= 500:
		return Transient
	default:
		return BadRequest
	}
}

// RetryAfter reads the server's requested wait from retry-after-ms (a
// number of milliseconds) or retry-after (seconds, or an HTTP date relative
// to now). It returns 0 when neither is present or readable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
