package sandbox

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
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

// credentialWords are the parts of a variable's name that mark it as a
// credential.
var credentialWords = []string{
	"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
	"CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY", "COOKIE",
}

// IsCredentialName reports whether a variable's name says it holds a
// credential, such as ANTHROPIC_API_KEY, GITHUB_TOKEN or PGPASSWORD.
func IsCredentialName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range credentialWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// HasPassword reports whether value holds a URL with a password, like a
// database URL (postgres://user:pw@host/db).
func HasPassword(value string) bool {
	for _, m := range urlPattern.FindAllString(value, -1) {
		if u, err := url.Parse(m); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				return true
			}
		}
	}
	return false
}

// urlPattern finds URLs with a user part in a value.
var urlPattern = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s@/]*@[^\s]*`)

// varName is what --env may name.
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// buildEnv picks the allowed variables and the named ones from environ, in
// environ's order. A named variable that is a credential is an error.
func buildEnv(environ, named []string) ([]string, error) {
	for _, n := range named {
		if !varName.MatchString(n) {
			return nil, fmt.Errorf("--env %q: want the name of a variable, like GOFLAGS", n)
		}
		if IsCredentialName(n) {
			return nil, fmt.Errorf("--env %s: the name says it holds a credential, and commands never get one", n)
		}
		if v, ok := lookup(environ, n); ok && HasPassword(v) {
			return nil, fmt.Errorf("--env %s: its value holds a password, and commands never get one", n)
		}
	}
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if slices.Contains(named, name) || allowed(name) && !IsCredentialName(name) && !HasPassword(value) {
			out = append(out, kv)
		}
	}
	return out, nil
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
