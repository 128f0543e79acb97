package gate

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Approvals is a set of calls a person approved: a call with the same
// tool and the same input (compared in canonical JSON, so key order and
// spacing do not matter) is allowed again without asking. The night keeps
// one per parked task; a person approving the parked call adds its key.
// A nil *Approvals holds nothing. It is safe for concurrent use.
type Approvals struct {
	mu     sync.Mutex
	keys   map[string]bool
	redact func(string) string
}

// Redacting makes s find a call also by its key with the credentials
// replaced (redact, a redact.Redactor's String), and returns s. The
// night stores parked actions redacted, as every text of the ledger
// (ledger.Config.Redact): an approved call that held a key comes back
// from the ledger as [redacted], and is matched in that form.
func (s *Approvals) Redacting(redact func(string) string) *Approvals {
	if s != nil {
		s.mu.Lock()
		s.redact = redact
		s.mu.Unlock()
	}
	return s
}

// NewApprovals returns a set holding keys (made by Key).
func NewApprovals(keys ...string) *Approvals {
	a := &Approvals{keys: map[string]bool{}}
	for _, k := range keys {
		a.keys[k] = true
	}
	return a
}

// Key returns the identity of a call: the tool's name and its input in
// canonical JSON. Input that is not JSON is kept as it is.
func Key(toolName string, input json.RawMessage) string {
	return toolName + " " + canonical(input)
}

// canonical re-encodes JSON with sorted keys and no spaces.
func canonical(input json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(input)
	}
	// No HTML escaping: the key is shown to people (a parked command in
	// the report) and must read as the model wrote it, "a > b".
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return string(input)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// Approve adds the call of a.
func (s *Approvals) Approve(a Action) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	s.keys[Key(a.Tool, a.Input)] = true
}

// Approved reports whether the call of a was approved.
func (s *Approvals) Approved(a Action) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := Key(a.Tool, a.Input)
	return s.keys[k] || s.redact != nil && s.keys[s.redact(k)]
}

// Keys returns the approved keys, sorted, for storing with a task.
func (s *Approvals) Keys() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.keys))
}
