package taskfile_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool"
)

func TestATaskFileNamesItsMCPServers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "task.yaml")
	if err := os.WriteFile(path, []byte(`
task: file the bug
mcp:
  fs:
    command: npx -y @modelcontextprotocol/server-filesystem "."
    class: write
    classes: {read_text_file: read}
  local:
    command: [./bin/server, --quiet]
    env: [GITHUB_TOKEN, GOFLAGS]
  github:
    url: https://mcp.example.com/mcp
    class: read
`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := taskfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := spec.MCPServers()
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 3 || servers[0].Name != "fs" || servers[1].Name != "github" || servers[2].Name != "local" {
		t.Fatalf("servers %+v, want fs, github, local", servers)
	}
	if !slices.Equal(servers[0].Command, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}) ||
		servers[0].Class != tool.Write || servers[0].Classes["read_text_file"] != tool.Read {
		t.Errorf("fs = %+v", servers[0])
	}
	if servers[1].URL != "https://mcp.example.com/mcp" || servers[1].Class != tool.Read {
		t.Errorf("github = %+v", servers[1])
	}
	if want := filepath.Join(dir, "bin", "server"); servers[2].Command[0] != want {
		t.Errorf("local's program = %q, want it read from the task file's folder, %q", servers[2].Command[0], want)
	}
	if !slices.Equal(servers[2].Env, []string{"GITHUB_TOKEN", "GOFLAGS"}) {
		t.Errorf("local's env = %q, want the variables its env: names", servers[2].Env)
	}

	for _, bad := range []string{
		"task: x\nmcp:\n  fs: {command: npx, class: sometimes}\n",
		"task: x\nmcp:\n  fs: {}\n",
		"task: x\nmcp:\n  a__b: {url: http://x}\n",
		"task: x\nmcp:\n  fs: {comand: npx}\n",
		"task: x\nmcp:\n  fs: {command: npx, env: [\"NOT A NAME\"]}\n",
		"task: x\nmcp:\n  fs: {url: http://x, env: [GITHUB_TOKEN]}\n",
	} {
		if _, err := taskfile.Parse([]byte(bad)); err == nil {
			t.Errorf("%q: no error", strings.ReplaceAll(bad, "\n", " "))
		}
	}
}

// trust_workspace lets a server start what the workspace holds (issue
// 25); it is off unless the entry says so.
func TestAnMCPServerEntryMayTrustTheWorkspace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "task.yaml")
	if err := os.WriteFile(path, []byte("task: x\nmcp:\n  srv: {command: python3 -m srv, trust_workspace: true}\n  fs: {command: npx -y @modelcontextprotocol/server-filesystem .}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := taskfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := spec.MCPServers()
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].TrustWorkspace || !servers[1].TrustWorkspace {
		t.Errorf("servers %+v: want only srv trusting the workspace", servers)
	}
	if err := os.WriteFile(path, []byte("task: x\nmcp:\n  gh: {url: https://mcp.example.com/mcp, trust_workspace: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if spec, err := taskfile.Load(path); err == nil {
		if _, err := spec.MCPServers(); err == nil {
			t.Error("trust_workspace on a url server was accepted")
		}
	}
}
