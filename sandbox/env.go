package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/redact"
)

// AllowedEnv lists the variables every command gets when they are set:
// what a shell and the usual tools need to behave as in the user's
// terminal, and nothing that can hold a credential. Variables whose
// name starts with LC_ pass too.
var AllowedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "TERM", "TZ", "COLORTERM", "NO_COLOR",
	"TMPDIR",
}

// varName is what --env may name.
var varName = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// buildEnv picks the allowed variables and the named ones from environ, in
// environ's order. A named variable that is a credential is an error.
func buildEnv(environ, named []string) ([]string, error) {
	for _, n := range named {
		if !varName.MatchString(n) {
			return nil, fmt.Errorf("--env %q: want the name of a variable, like GOFLAGS", n)
		}
		if redact.IsCredentialName(n) {
			return nil, fmt.Errorf("--env %s: the name says it holds a credential, and commands never get one", n)
		}
		if v, ok := lookup(environ, n); ok && redact.HasPassword(v) {
			return nil, fmt.Errorf("--env %s: its value holds a password, and commands never get one", n)
		}
	}
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if slices.Contains(named, name) || allowed(name) && !redact.IsCredentialName(name) && !redact.HasPassword(value) {
			out = append(out, kv)
		}
	}
	return out, nil
}

// CleanEnv returns the variables of environ that the allow-list
// (AllowedEnv, LC_*) picks, none of them a credential: the environment
// of a process nightshift starts when nobody named more.
func CleanEnv(environ []string) []string {
	env, _ := buildEnv(environ, nil) // nothing named, nothing to refuse
	return env
}

func allowed(name string) bool {
	return slices.Contains(AllowedEnv, name) || strings.HasPrefix(name, "LC_")
}

func lookup(environ []string, name string) (string, bool) {
	for i := len(environ) - 1; i >= 0; i-- {
		if n, v, ok := strings.Cut(environ[i], "="); ok && n == name {
			return v, true
		}
	}
	return "", false
}

// withBwrapEnv adapts the environment to bubblewrap's private /tmp and
// read-only home: TMPDIR is /tmp (the caller's may not exist inside), and
// caches (Go's build cache, pip's, ...) go to /tmp too, unless the user
// named XDG_CACHE_HOME, so that a `go test` does not fail on a read-only
// ~/.cache.
func withBwrapEnv(env []string) []string {
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	env = append(env, "TMPDIR=/tmp")
	if _, ok := lookup(env, "XDG_CACHE_HOME"); !ok {
		env = append(env, "XDG_CACHE_HOME=/tmp/.cache")
	}
	return env
}
