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
	// ContextOverflow: the prompt does not fit the model's context
	// window (llama.cpp's exceed_context_size_error, OpenAI's
	// context_length_exceeded, ...), whatever the status. Never retried:
	// the same prompt would be refused again. A smaller prompt is a new
	// request: the loop compacts the history and sends that.
	ContextOverflow Class = "context-overflow"
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
	// Window and PromptTokens are, for a ContextOverflow, the context
	// window the server runs the model with and the size of the prompt
	// it refused, in tokens, when its message names them (0 when not).
	Window, PromptTokens int
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
	if overflowStatus(status) && (IsOverflowText(errType) || IsOverflowText(message)) {
		return ContextOverflow
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

// overflowStatus reports whether a context overflow can come with
// status: a refusal of the request (400, 413, 422, ...), or a 500 from a
// server that reports every failure so (LM Studio mid-stream); never an
// auth failure, a rate limit or an overload, which say something else.
func overflowStatus(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests, http.StatusServiceUnavailable, 529:
		return false
	}
	return status >= 400
}

// OverflowError fills e's ContextOverflow numbers from its message, when
// e is one; it returns e.
func OverflowError(e *Error) *Error {
	if e != nil && e.Class == ContextOverflow {
		o := ParseOverflow(e.Message)
		e.Window, e.PromptTokens = o.Window, o.Prompt
	}
	return e
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
