package verify

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ErrBadRule is matched by every error ParseRule returns: the rule cannot
// run, which is a usage error before the run starts, never a FAIL.
var ErrBadRule = errors.New("bad rule")

// RuleError says which rule spec could not be parsed and why.
type RuleError struct {
	Spec   string
	Reason string
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("check %q: %s", e.Spec, e.Reason)
}

// Is makes errors.Is(err, ErrBadRule) true.
func (e *RuleError) Is(target error) bool { return target == ErrBadRule }

// ruleSyntax lists each rule kind with its fields, for ParseRule's errors
// and the CLI's help.
var ruleSyntax = []string{
	"not-empty",
	"exists:PATH",
	"min-chars:PATH:N",
	"max-chars:PATH:N",
	"min-words:PATH:N",
	"contains:PATH:TEXT",
	"matches:PATH:REGEX",
	"json:PATH",
	"json:PATH:SCHEMA",
	"cmd:COMMAND",
}

// RuleSyntax returns the accepted rule forms, one per entry, for help text.
func RuleSyntax() []string { return append([]string(nil), ruleSyntax...) }

// ParseRule turns a spec such as "min-chars:post.md:4000" into a Rule.
// Fields split on the first colons, so the last field may hold colons:
// "contains:notes.md:a:b" looks for "a:b". PATH is relative to the
// workspace and may not leave it. baseDir is where a relative SCHEMA file
// is found (the task file's folder, or the working directory).
//
// Every problem that would stop the rule from running (an unknown kind, a
// missing field, a bad N, a bad regex, a missing or invalid schema file) is
// reported here as an error matching ErrBadRule.
func ParseRule(spec, baseDir string) (Rule, error) {
	bad := func(format string, args ...any) error {
		return &RuleError{Spec: spec, Reason: fmt.Sprintf(format, args...)}
	}
	kind, rest, hasArgs := strings.Cut(strings.TrimSpace(spec), ":")
	kind = strings.TrimSpace(kind)
	switch kind {
	case notEmptyName:
		if hasArgs {
			return nil, bad("not-empty takes no fields")
		}
		return NotEmpty(), nil
	case "cmd":
		if strings.TrimSpace(rest) == "" {
			return nil, bad("want cmd:COMMAND")
		}
		return Cmd(rest, 0), nil
	case "exists":
		// One field, so it may hold colons.
		path, err := checkPath(rest)
		if err != nil {
			return nil, bad("%v", err)
		}
		return Exists(path), nil
	case "json":
		path, schemaFile, hasSchema := strings.Cut(rest, ":")
		path, err := checkPath(path)
		if err != nil {
			return nil, bad("%v", err)
		}
		if !hasSchema {
			return jsonRule(spec, path, nil, ""), nil
		}
		schema, err := loadSchema(baseDir, schemaFile)
		if err != nil {
			return nil, bad("%v", err)
		}
		return jsonRule(spec, path, schema, schemaFile), nil
	case "min-chars", "max-chars", "min-words", "contains", "matches":
		path, last, ok := strings.Cut(rest, ":")
		if !ok {
			return nil, bad("want %s:PATH:%s", kind, lastField(kind))
		}
		path, err := checkPath(path)
		if err != nil {
			return nil, bad("%v", err)
		}
		switch kind {
		case "contains":
			if last == "" {
				return nil, bad("want contains:PATH:TEXT with a non-empty TEXT")
			}
			return Contains(path, last), nil
		case "matches":
			re, err := regexp.Compile(last)
			if err != nil {
				return nil, bad("bad regex: %v", err)
			}
			return Matches(path, re), nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(last))
		if err != nil || n < 0 {
			return nil, bad("N must be a whole number of 0 or more, got %q", last)
		}
		return countRule(kind, path, n), nil
	case "":
		return nil, bad("empty rule")
	}
	return nil, bad("unknown rule %q; known rules: %s", kind, strings.Join(ruleSyntax, ", "))
}

// lastField names the last field of a two-field rule, for error messages.
func lastField(kind string) string {
	switch kind {
	case "contains":
		return "TEXT"
	case "matches":
		return "REGEX"
	}
	return "N"
}

// checkPath cleans a rule's PATH and refuses one that is empty, absolute or
// leaves the workspace: rules check the workspace and nothing else.
func checkPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", errors.New("PATH is empty")
	}
	if !filepath.IsLocal(p) {
		return "", fmt.Errorf("PATH %q must be relative to the workspace and stay inside it", p)
	}
	return filepath.ToSlash(filepath.Clean(p)), nil
}
