package redact

import (
	"os"
	"strings"
)

// KnownKeys are the variables holding the providers' keys and the
// ledger's database URL, redacted whatever their length rule says about
// their names.
var KnownKeys = []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "NIGHTSHIFT_DB"}

// wholeOnly are the known variables that hold a place, not a key: their
// value is masked whole, never in part (the ledger's file name, the
// host of its URL, are no secret; the URL's password is, see Learn).
var wholeOnly = map[string]bool{"NIGHTSHIFT_DB": true}

// FromEnv returns a Redactor of the credentials in environ (KEY=VALUE
// entries; nil means os.Environ()): the values of the variables in
// KnownKeys and in names (a pipeline's api_key_env, say), of every
// variable whose name says it is a credential (IsCredentialName), and the
// passwords of the URLs in any value (NIGHTSHIFT_DB=postgres://u:pw@...),
// with the whole value of a variable that holds one.
func FromEnv(environ []string, names ...string) *Redactor {
	if environ == nil {
		environ = os.Environ()
	}
	named := map[string]bool{}
	for _, n := range append(append([]string(nil), KnownKeys...), names...) {
		named[n] = true
	}
	var secrets, wholes []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		pws := Passwords(value)
		switch {
		case wholeOnly[name] || len(pws) > 0 && !IsCredentialName(name):
			wholes = append(wholes, value)
		case named[name] || IsCredentialName(name):
			secrets = append(secrets, value)
		}
		secrets = append(secrets, pws...)
	}
	r := &Redactor{}
	r.add(secrets, wholes)
	return r
}
