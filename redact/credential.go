package redact

import (
	"net/url"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

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

// queryCredentials are the names of URL query parameters that hold a
// credential besides those IsCredentialName knows: libpq's and pgx's
// password=, a storage service's signature (sig=), key=.
var queryCredentials = []string{"pwd", "pass", "key", "sig", "signature", "auth", "apikey", "api-key", "sslpassword"}

// isQueryCredential reports whether a query parameter's name says it
// holds a credential.
func isQueryCredential(name string) bool {
	return IsCredentialName(strings.ReplaceAll(name, "-", "_")) || slices.Contains(queryCredentials, strings.ToLower(name))
}

// urlPattern finds URLs in a text.
var urlPattern = lazyregexp.New(`[A-Za-z][A-Za-z0-9+.-]*://[^\s]+`).Needs("://")

// Passwords returns the credentials of the URLs in value (as written,
// and decoded when that differs): the password of a user part, like pw
// in postgres://user:pw@host/db, a user part without a password that is
// a token (https://ghp_0123…@github.com), and the values of query
// parameters named as credentials (postgres://user@host/db?password=pw,
// https://host/x?token=t, ?sig=).
func Passwords(value string) []string {
	var out []string
	for _, m := range urlPattern.FindAllString(value, -1) {
		// What ends a sentence or closes a quote is not the URL's.
		m = strings.TrimRight(m, `.,;:!?)]}>'"`+"`")
		u, err := url.Parse(m)
		if err != nil {
			continue
		}
		if u.User != nil {
			if name := u.User.Username(); isTokenName(name) {
				if _, ok := u.User.Password(); !ok {
					// https://ghp_…@github.com/…: the user part is the token.
					out = append(out, name)
				}
			}
			if pw, ok := u.User.Password(); ok && pw != "" {
				out = append(out, pw)
				// The raw form, as it is written in the URL.
				if _, info, ok := strings.Cut(strings.SplitN(m, "@", 2)[0], "://"); ok {
					if _, raw, ok := strings.Cut(info, ":"); ok && raw != pw {
						out = append(out, raw)
					}
				}
			}
		}
		for _, kv := range strings.Split(u.RawQuery, "&") {
			name, raw, ok := strings.Cut(kv, "=")
			if !ok || raw == "" || !isQueryCredential(name) {
				continue
			}
			out = append(out, raw)
			if v, err := url.QueryUnescape(raw); err == nil && v != raw {
				out = append(out, v)
			}
		}
	}
	return out
}

// minTokenName is the shortest user part without a password taken for a
// token (https://TOKEN@host): GitHub's and GitLab's tokens are longer, a
// person's or a database's user name shorter.
const minTokenName = 20

// isTokenName reports whether a URL's user name, given without a
// password, looks like a token: long, with letters and digits.
func isTokenName(name string) bool {
	return len(name) >= minTokenName && strings.ContainsAny(name, "0123456789") &&
		strings.ContainsFunc(name, func(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' })
}

// HasPassword reports whether value holds a URL with a password.
func HasPassword(value string) bool { return len(Passwords(value)) > 0 }

// Learn adds the credentials of the URLs in each value, a flag's or an
// argument's (--db postgres://user:pw@host/db): every password (see
// Passwords) with Add, and the value itself, when it holds one, with
// AddWhole, so that a password too short to be masked on its own is
// masked with its URL.
func (r *Redactor) Learn(values ...string) {
	var pws, wholes []string
	for _, v := range values {
		if p := Passwords(v); len(p) > 0 {
			pws = append(pws, p...)
			wholes = append(wholes, v)
		}
	}
	if len(pws) > 0 {
		r.add(pws, wholes)
	}
}
