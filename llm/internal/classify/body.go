package classify

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxMessage bounds the provider message kept in an error: enough for any
// real API message, short enough that an HTML error page from a proxy does
// not flood a log line.
const maxMessage = 500

// Detail is what a provider's error body says.
type Detail struct {
	// Type is the error type ("overloaded_error", "invalid_request_error").
	Type string
	// Code is OpenAI's error code ("insufficient_quota",
	// "rate_limit_exceeded"), or a number as text on servers that put the
	// HTTP status there (vLLM).
	Code string
	// Message is the human message.
	Message string
}

// Name is the most specific of Code and Type: OpenAI's code says more than
// its type (type "invalid_request_error", code "invalid_api_key"), and
// Anthropic has only a type.
func (d Detail) Name() string {
	if d.Code != "" && !isNumber(d.Code) {
		return d.Code
	}
	return d.Type
}

// ParseBody reads an error body in any of the shapes providers use:
//
//	{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}   (Anthropic)
//	{"error":{"message":"...","type":"insufficient_quota","code":"insufficient_quota"}}   (OpenAI)
//	{"error":{"message":"...","type":"BadRequestError","code":400}}   (vLLM)
//	{"error":"model 'x' not found"}   (Ollama)
//
// A body that is not JSON becomes the message, shortened.
func ParseBody(body []byte) Detail {
	body = bytes.TrimSpace(body)
	var env struct {
		Type    string          `json:"type"`
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return Detail{Message: shorten(string(body))}
	}
	var d Detail
	var inner struct {
		Type    string          `json:"type"`
		Message string          `json:"message"`
		Code    json.RawMessage `json:"code"`
	}
	var text string
	switch {
	case json.Unmarshal(env.Error, &text) == nil:
		d.Message = text
	case json.Unmarshal(env.Error, &inner) == nil:
		d.Type, d.Message, d.Code = inner.Type, inner.Message, rawText(inner.Code)
	}
	if d.Message == "" {
		d.Message = env.Message
	}
	if d.Type == "" && env.Type != "error" {
		d.Type = env.Type
	}
	d.Message = shorten(d.Message)
	return d
}

// rawText returns a JSON string's value or a number's text; "" otherwise.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// shorten trims s and cuts it to maxMessage bytes on a rune boundary.
func shorten(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
