package agent

import (
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// checkSchema returns "" when answer is JSON valid against s, else the
// parser's or validator's message verbatim (seed 000, section 3.2: "stuff
// the parse error back verbatim and have it regenerate").
func checkSchema(s *jsonschema.Resolved, answer string) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(stripFence(answer)))
	if err := dec.Decode(&v); err != nil {
		return err.Error()
	}
	if dec.More() {
		return "invalid character after top-level value"
	}
	if err := s.Validate(v); err != nil {
		return err.Error()
	}
	return ""
}

// stripFence removes one Markdown code fence around a JSON answer, which
// models add out of habit; the content itself is not repaired.
func stripFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return s
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, "```"), "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 && !strings.ContainsAny(t[:i], "{[\"") {
		t = t[i+1:]
	}
	return t
}
