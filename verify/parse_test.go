package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseRuleSplitsOnTheFirstColons(t *testing.T) {
	dir := setup(t, map[string]string{"notes.md": "see a:b:c here", "we:ird.txt": "x"})
	tests := []struct {
		name, spec, wantName, wantString string
	}{
		{"contains keeps colons in its text", "contains:notes.md:a:b:c", "contains", "contains:notes.md:a:b:c"},
		{"matches keeps colons in its regex", "matches:notes.md:a:b:c", "matches", "matches:notes.md:a:b:c"},
		{"exists keeps colons in its path", "exists:we:ird.txt", "exists", "exists:we:ird.txt"},
		{"cmd keeps colons in its command", "cmd:grep -q a:b notes.md", "cmd", "cmd:grep -q a:b notes.md"},
		{"surrounding whitespace is ignored", "  not-empty ", "not-empty", "not-empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRule(t, tt.spec, dir)
			if r.Name() != tt.wantName {
				t.Errorf("Name() = %q, want %q", r.Name(), tt.wantName)
			}
			if got := fmt.Sprint(r); got != tt.wantString {
				t.Errorf("String() = %q, want %q", got, tt.wantString)
			}
			if f := r.Check(context.Background(), Input{Dir: dir, Answer: "ok"}); f != nil {
				t.Errorf("%s failed: %s", tt.spec, f.Message)
			}
		})
	}
}

func TestParseRuleRefusesRulesThatCannotRun(t *testing.T) {
	dir := setup(t, map[string]string{
		"bad.schema.json":     `{"type": 12}`,
		"notjson.schema.json": `{{{`,
		"remote.schema.json":  `{"$ref": "https://example.com/s.json"}`,
	})
	tests := []struct {
		name, spec, want string
	}{
		{"an unknown rule", "word-count:post.md:10", `unknown rule "word-count"`},
		{"an empty spec", "", "empty rule"},
		{"a bad regex", "matches:post.md:([a-z", "bad regex"},
		{"a missing schema file", "json:data.json:missing.schema.json", "schema missing.schema.json"},
		{"a schema that is not JSON", "json:data.json:notjson.schema.json", "not a JSON Schema"},
		{"an invalid schema", "json:data.json:bad.schema.json", "schema bad.schema.json"},
		{"a schema with a remote ref", "json:data.json:remote.schema.json", "schema remote.schema.json"},
		{"a word for N", "min-chars:post.md:many", "N must be a whole number"},
		{"a negative N", "min-words:post.md:-1", "N must be a whole number"},
		{"a missing N", "min-chars:post.md", "want min-chars:PATH:N"},
		{"a missing text", "contains:post.md:", "non-empty TEXT"},
		{"an empty path", "exists:", "PATH is empty"},
		{"an absolute path", "exists:/etc/passwd", "must be relative"},
		{"a path that climbs out", "min-chars:../post.md:10", "must be relative"},
		{"an empty command", "cmd: ", "want cmd:COMMAND"},
		{"not-empty with fields", "not-empty:x", "takes no fields"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRule(tt.spec, dir)
			if err == nil {
				t.Fatalf("ParseRule(%q) = %v, want an error", tt.spec, r)
			}
			if !errors.Is(err, ErrBadRule) {
				t.Errorf("error %v does not match ErrBadRule", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.spec)) {
				t.Errorf("error = %q, want it to quote the spec and say %q", err, tt.want)
			}
		})
	}
}
