package classify

import (
	"net/http"
	"strconv"
	"strings"
)

// typeStatus maps the error types and codes providers send in a mid-stream
// error event to the HTTP status the same failure has when it comes before
// the stream starts. A stream's status is already 200 by then, so the type
// is all there is to classify by.
var typeStatus = map[string]int{
	// Anthropic error types.
	"invalid_request_error": http.StatusBadRequest,
	"authentication_error":  http.StatusUnauthorized,
	"billing_error":         http.StatusPaymentRequired,
	"permission_error":      http.StatusForbidden,
	"not_found_error":       http.StatusNotFound,
	"request_too_large":     http.StatusRequestEntityTooLarge,
	"rate_limit_error":      http.StatusTooManyRequests,
	"api_error":             http.StatusInternalServerError,
	"overloaded_error":      529,
	"timeout_error":         http.StatusGatewayTimeout,
	// OpenAI and OpenAI-compatible types and codes.
	"insufficient_quota":      http.StatusTooManyRequests,
	"rate_limit_exceeded":     http.StatusTooManyRequests,
	"server_error":            http.StatusInternalServerError,
	"internal_error":          http.StatusInternalServerError,
	"server_overloaded":       http.StatusServiceUnavailable,
	"overloaded":              http.StatusServiceUnavailable,
	"service_unavailable":     http.StatusServiceUnavailable,
	"invalid_api_key":         http.StatusUnauthorized,
	"model_not_found":         http.StatusNotFound,
	"context_length_exceeded": http.StatusBadRequest,
}

// StreamStatus returns the HTTP status equivalent to an error event's
// type or code. A numeric code in the error range is taken as it is (vLLM
// sends the status there). An unknown type counts as a server fault (500):
// the stream had started, so the request itself was accepted.
func StreamStatus(d Detail) int {
	if n, err := strconv.Atoi(d.Code); err == nil && n >= 400 && n <= 599 {
		return n
	}
	for _, key := range []string{d.Code, d.Type} {
		if s, ok := typeStatus[strings.ToLower(key)]; ok {
			return s
		}
	}
	return http.StatusInternalServerError
}
