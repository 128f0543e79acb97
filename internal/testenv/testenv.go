package testenv

import (
	"os"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/redact"
)

// endpoints are variables that are not credentials but would send a test's
// calls somewhere real (a provider, a collector) or change which model a
// test talks to.
var endpoints = []string{
	"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
	"NIGHTSHIFT_MODEL", "NIGHTSHIFT_DB",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_TRACES_EXPORTER",
}

// Scrub removes from this process's environment every variable that holds
// a credential (by name, as the redactor reads names: *_API_KEY, *_TOKEN,
// *PASSWORD, ...) and every variable that points a provider or an
// exporter somewhere. It returns the names it removed, never their values.
func Scrub() []string {
	var gone []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if Scrubbed(name) {
			os.Unsetenv(name)
			gone = append(gone, name)
		}
	}
	return gone
}

// Scrubbed reports whether Scrub removes the variable name.
func Scrubbed(name string) bool {
	for _, k := range redact.KnownKeys {
		if name == k {
			return true
		}
	}
	for _, k := range endpoints {
		if name == k {
			return true
		}
	}
	return redact.IsCredentialName(name)
}

// Main scrubs the environment, runs m's tests and exits with their code:
// the whole TestMain of a package that needs nothing else.
func Main(m *testing.M) {
	Scrub()
	os.Exit(m.Run())
}
