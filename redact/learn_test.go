package redact

import (
	"strings"
	"testing"
)

// Regression (issue 25): a password given in --db was printed, and landed
// in the report's approve commands: only the environment's URLs were
// learnt.
func TestLearnMasksThePasswordsOfURLs(t *testing.T) {
	tests := []struct{ name, value, secret string }{
		{"a flag's value", "postgres://night:hunter2-hunter2@db.example:5432/night", "hunter2-hunter2"},
		{"a flag written --db=URL", "--db=postgres://night:hunter2-hunter2@db.example/night", "hunter2-hunter2"},
		{"a password percent-encoded", "postgresql://night:p%40ss-word-1234@db/night", "p@ss-word-1234"},
		{"a password in the query", "postgres://night@db.example/night?sslmode=disable&password=query-pass-5678", "query-pass-5678"},
		{"a token in the query", "https://mcp.example/sse?access_token=tok-0123456789abcdef", "tok-0123456789abcdef"},
		{"a signature in the query", "https://store.example/blob?sv=2024&sig=c2lnbmF0dXJlLXZhbHVl", "c2lnbmF0dXJlLXZhbHVl"},
		{"an https URL's user and password", "https://user:gh-pass-0123456789@proxy.example/v1", "gh-pass-0123456789"},
		{"a token as the user part", "https://ghp_0123456789abcdefABCDEF0123456789@github.com/o/r.git", "ghp_0123456789abcdefABCDEF0123456789"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New()
			r.Learn(tt.value)
			if r.Len() == 0 {
				t.Fatalf("learnt nothing from %q", tt.value)
			}
			for _, in := range []string{"the password is " + tt.secret, tt.value, "cut: " + tt.secret[:len(tt.secret)-2] + "…"} {
				if got := r.String(in); strings.Contains(got, tt.secret[:MinLen]) {
					t.Errorf("String(%q) = %q", in, got)
				}
			}
		})
	}
}

func TestLearnLeavesURLsWithoutCredentials(t *testing.T) {
	r := New()
	r.Learn("postgres://night@db.example/night?sslmode=disable", "https://example.com/docs?page=2", "nightshift.db", "--db=night.db",
		"postgres://nightshift-ledger-user@db/x", "https://git@github.com/o/r.git")
	if r.Len() != 0 {
		t.Errorf("learnt %d secrets from URLs without credentials", r.Len())
	}
}

func TestAShortPasswordIsMaskedWithItsURL(t *testing.T) {
	r := New()
	dsn := "postgres://u:pw@db.example:5432/night"
	r.Learn(dsn)
	if got := r.String("open " + dsn + ": refused"); got != "open [redacted]: refused" {
		t.Errorf("got %q", got)
	}
}

// A database URL is masked whole, never in part: its host and port are
// no secret, and an error that names them must still say where.
func TestADatabaseURLIsNotMaskedInPart(t *testing.T) {
	r := FromEnv([]string{"NIGHTSHIFT_DB=postgres://night:s3cret-pass-word@db.example:5432/night"})
	in := "dial tcp db.example:5432: connection refused (postgres://night)"
	if got := r.String(in); got != in {
		t.Errorf("String(%q) = %q", in, got)
	}
	if got := r.String("password s3cret-pass-wo…"); strings.Contains(got, "s3cret-p") {
		t.Errorf("the password cut short was left: %q", got)
	}
}
