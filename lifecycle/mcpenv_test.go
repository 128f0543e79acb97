package lifecycle_test

import (
	"context"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/mcp"
)

// mcpEnvServer makes the test binary an MCP server on stdio whose one
// tool, env, answers with the server's environment (TestMain).
const mcpEnvServer = "LIFECYCLE_TEST_MCP_ENV_SERVER"

func serveEnv() {
	s := sdk.NewServer(&sdk.Implementation{Name: "env", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "The server's environment."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// Regression: a stdio MCP server inherited nightshift's whole
// environment, its API keys and database URL included.
func TestAStdioMCPServerGetsTheCommandsEnvironmentNotNightshiftsKeys(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := setup(t, `
turns:
  - tool_calls: [{name: srv__env, input: {}}]
  - text: Seen.
`)
	reqs := f.watch()
	f.cfg.Spec.Sandbox = "none"
	f.cfg.Environ = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/home/u", mcpEnvServer + "=1",
		"ANTHROPIC_API_KEY=sk-ant-test-0123456789", "NIGHTSHIFT_DB=postgres://u:pw123456@db/x",
		"GOFLAGS=-count=1", "GITHUB_TOKEN=ghp_0123456789abcdef",
	}
	f.cfg.Spec.Env = runspec.List{"GOFLAGS"} // --env GOFLAGS
	f.cfg.MCP = []mcp.Server{{Name: "srv", Command: []string{exe}, Env: []string{mcpEnvServer, "GITHUB_TOKEN"}, Class: tool.Read}}
	var warned []string
	f.cfg.Warn = func(l string) { warned = append(warned, l) }

	if res := f.run(t); res.Outcome != agent.Done {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	env := strings.Split(lastText(reqs.all()[1]), "\n")
	has := func(name string) bool {
		for _, kv := range env {
			if strings.HasPrefix(kv, name+"=") {
				return true
			}
		}
		return false
	}
	for _, want := range []string{"PATH", "HOME", "GOFLAGS", "GITHUB_TOKEN", "NIGHTSHIFT_JOURNAL"} {
		if !has(want) {
			t.Errorf("the server lacks %s: %q", want, env)
		}
	}
	for _, secret := range []string{"ANTHROPIC_API_KEY", "NIGHTSHIFT_DB"} {
		if has(secret) {
			t.Errorf("the server sees %s: %q", secret, env)
		}
	}
	var about []string
	for _, w := range warned {
		if strings.Contains(w, "MCP server") {
			about = append(about, w)
		}
	}
	if len(about) != 1 || !strings.Contains(about[0], "GITHUB_TOKEN") {
		t.Errorf("warnings %q, want one line saying srv gets GITHUB_TOKEN", warned)
	}
}
