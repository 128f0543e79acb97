package command

import (
	"strings"

	"github.com/nightshift-dev/nightshift/redact"
)

// SafeEnv returns env (KEY=VALUE entries) without the variables whose
// names look like credentials, such as ANTHROPIC_API_KEY or GITHUB_TOKEN.
//
// Deprecated: commands get the sandbox's allow-list (sandbox.AllowedEnv
// and the names given with --env), which is stricter: a variable that is
// not listed does not pass, whatever its name. SafeEnv stays for callers
// that filter an environment of their own.
func SafeEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !redact.IsCredentialName(name) && !redact.HasPassword(value) {
			out = append(out, kv)
		}
	}
	return out
}
