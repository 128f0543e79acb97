package redact

import (
	"net/url"
	"regexp"
	"strings"
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

// urlPattern finds URLs with a user part in a text.
var urlPattern = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s@/]*@[^\s]*`)

// Passwords returns the passwords of the URLs in value (as written, and
// decoded when that differs), like pw in postgres://user:pw@host/db.
func Passwords(value string) []string {
	var out []string
	for _, m := range urlPattern.FindAllString(value, -1) {
		u, err := url.Parse(m)
		if err != nil || u.User == nil {
			continue
		}
		pw, ok := u.User.Password()
		if !ok || pw == "" {
			continue
		}
		out = append(out, pw)
		// The raw form, as it is written in the URL.
		if _, info, ok := strings.Cut(strings.SplitN(m, "@", 2)[0], "://"); ok {
			if _, raw, ok := strings.Cut(info, ":"); ok && raw != pw {
				out = append(out, raw)
			}
		}
	}
	return out
}

// HasPassword reports whether value holds a URL with a password.
func HasPassword(value string) bool { return len(Passwords(value)) > 0 }
