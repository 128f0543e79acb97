package command

import "strings"

// secretWords are the parts of a variable name that mark it as a
// credential. A command's output goes to the model and into the run's
// record, where an API key must never appear.
var secretWords = []string{"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY"}

// SafeEnv returns env (KEY=VALUE entries) without the variables whose
// names look like credentials, such as ANTHROPIC_API_KEY or GITHUB_TOKEN.
func SafeEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !isSecret(name) {
			out = append(out, kv)
		}
	}
	return out
}

func isSecret(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}
