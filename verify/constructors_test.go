package verify_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/nightshift-dev/nightshift/verify"
)

// TestRuleConstructorsAreWhatParseRuleBuilds: a program that builds its
// rules in Go gets the same checks, names, specs and messages as a person
// who writes them on the command line.
func TestRuleConstructorsAreWhatParseRuleBuilds(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "post.md", "one two three")
	writeFile(t, dir, "data.json", `{"a": 1}`)
	tests := []struct {
		spec string
		rule verify.Rule
	}{
		{"exists:post.md", verify.Exists("post.md")},
		{"exists:missing.md", verify.Exists("./missing.md")},
		{"min-chars:post.md:5", verify.MinChars("post.md", 5)},
		{"min-chars:post.md:500", verify.MinChars("post.md", 500)},
		{"max-chars:post.md:5", verify.MaxChars("post.md", 5)},
		{"min-words:post.md:4", verify.MinWords("post.md", 4)},
		{"contains:post.md:two", verify.Contains("post.md", "two")},
		{"contains:post.md:four", verify.Contains("post.md", "four")},
		{"matches:post.md:^one", verify.Matches("post.md", regexp.MustCompile("^one"))},
		{"matches:post.md:^two", verify.Matches("post.md", regexp.MustCompile("^two"))},
		{"json:data.json", verify.JSON("data.json", nil)},
		{"json:post.md", verify.JSON("post.md", nil)},
	}
	in := verify.Input{Dir: dir, Answer: "done"}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			parsed := mustParse(t, tt.spec)
			if tt.rule.Name() != parsed.Name() || fmt.Sprint(tt.rule) != fmt.Sprint(parsed) {
				t.Errorf("constructor gives %s %q, ParseRule %s %q", tt.rule.Name(), fmt.Sprint(tt.rule), parsed.Name(), fmt.Sprint(parsed))
			}
			got, want := tt.rule.Check(context.Background(), in), parsed.Check(context.Background(), in)
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Errorf("constructor's check = %v, ParseRule's = %v", got, want)
			}
		})
	}
	t.Run("a path that leaves the workspace fails the check", func(t *testing.T) {
		if f := verify.Exists("../outside").Check(context.Background(), in); f == nil {
			t.Error("exists ../outside passed")
		}
	})
}
