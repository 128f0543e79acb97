package mcp

import (
	"slices"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/sandbox"
)

// serverSees returns the environment the stdio server reports with its
// env tool.
func serverSees(t *testing.T, cfg Config) []string {
	t.Helper()
	_, set := open(t, cfg)
	r := call(set, "srv__env", `{}`)
	if r.IsError {
		t.Fatalf("env = %+v", r)
	}
	return strings.Split(r.Content, "\n")
}

func has(env []string, name string) bool {
	return slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

func TestAStdioServerDoesNotInheritNightshiftsCredentials(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
	t.Setenv("NIGHTSHIFT_DB", "postgres://nightshift:hunter2hunter2@db.example/nightshift")
	t.Setenv("MY_LLM_TOKEN", "a-key-named-by-api-key-env")
	t.Setenv("GOFLAGS", "-count=1")
	t.Setenv("PATH", "/usr/bin:/bin")

	t.Run("by default a server gets the allow-listed variables and no credential", func(t *testing.T) {
		env := serverSees(t, Config{Servers: []Server{stdioServer(t, "srv")}})
		for _, secret := range []string{"ANTHROPIC_API_KEY", "NIGHTSHIFT_DB", "MY_LLM_TOKEN", "GOFLAGS"} {
			if has(env, secret) {
				t.Errorf("the server sees %s: %q", secret, env)
			}
		}
		if !slices.Contains(env, "PATH=/usr/bin:/bin") {
			t.Errorf("the server lacks PATH: %q", env)
		}
	})

	t.Run("a server gets the variables --env names, as commands do", func(t *testing.T) {
		sb, err := sandbox.New(sandbox.Config{Mode: sandbox.None, Dir: t.TempDir(), Env: []string{"GOFLAGS"}})
		if err != nil {
			t.Fatal(err)
		}
		env := serverSees(t, Config{Env: sb.OutsideEnv(), Servers: []Server{stdioServer(t, "srv")}})
		if !slices.Contains(env, "GOFLAGS=-count=1") || has(env, "ANTHROPIC_API_KEY") {
			t.Errorf("env = %q, want GOFLAGS and no key", env)
		}
	})

	t.Run("a credential reaches a server only when its env names it, with one warning", func(t *testing.T) {
		var warned []string
		servers := []Server{stdioServer(t, "srv")}
		if err := AddEnv(servers, "srv=MY_LLM_TOKEN"); err != nil {
			t.Fatal(err)
		}
		if err := AddEnv(servers, "srv=NIGHTSHIFT_DB"); err != nil {
			t.Fatal(err)
		}
		env := serverSees(t, Config{Servers: servers, Warn: func(l string) { warned = append(warned, l) }})
		if !slices.Contains(env, "NIGHTSHIFT_DB=postgres://nightshift:hunter2hunter2@db.example/nightshift") || !has(env, "MY_LLM_TOKEN") {
			t.Errorf("env = %q, want the variables its env names", env)
		}
		if has(env, "ANTHROPIC_API_KEY") {
			t.Errorf("the server sees ANTHROPIC_API_KEY, which it did not name: %q", env)
		}
		if len(warned) != 1 || !strings.Contains(warned[0], "MCP server srv gets") || !strings.Contains(warned[0], "NIGHTSHIFT_DB") {
			t.Errorf("warnings = %q, want one line naming the server and the credential", warned)
		}
	})
}

func TestMCPEnvRulesAreChecked(t *testing.T) {
	servers := []Server{{Name: "web", URL: "http://127.0.0.1:1/mcp"}, {Name: "fs", Command: []string{"server"}}}
	for _, rule := range []string{"fs", "fs=", "fs=NOT-A-NAME", "github=GITHUB_TOKEN", "web=TOKEN"} {
		if err := AddEnv(servers, rule); err == nil {
			t.Errorf("--mcp-env %q was accepted", rule)
		}
	}
	if err := AddEnv(servers, "fs=GITHUB_TOKEN"); err != nil || !slices.Equal(servers[1].Env, []string{"GITHUB_TOKEN"}) {
		t.Fatalf("fs=GITHUB_TOKEN: %v, env %q", err, servers[1].Env)
	}
	if err := (Server{Name: "fs", Command: []string{"x"}, Env: []string{"A B"}}).Check(); err == nil {
		t.Error("an env naming no variable was accepted")
	}
}
