package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/tool"
)

// fsServer is the reference filesystem server from npm
// (@modelcontextprotocol/server-filesystem), as .ci/run installs it in
// .ci/node. Where npm is present and the server is not installed yet, the
// test installs it there as .ci/run does; where npm is absent, it skips.
func fsServer(t *testing.T) string {
	t.Helper()
	prefix, err := filepath.Abs(filepath.Join("..", "..", ".ci", "node"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(prefix, "node_modules", ".bin", "mcp-server-filesystem")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is absent: the reference filesystem MCP server cannot be installed (.ci/run installs it with npm ci --prefix .ci/node)")
	}
	out, err := exec.Command(npm, "ci", "--prefix", prefix, "--no-audit", "--no-fund").CombinedOutput()
	if err != nil {
		t.Fatalf("npm ci --prefix %s: %v\n%s", prefix, err, out)
	}
	return bin
}

func TestTheReferenceFilesystemServerFromNPMWorksInTheWorkspace(t *testing.T) {
	bin := fsServer(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("key"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := []Server{{Name: "fs", Command: []string{bin, "."}}}
	if err := SetClass(servers, "fs=write"); err != nil {
		t.Fatal(err)
	}
	if err := SetClass(servers, "fs__read_text_file=read"); err != nil {
		t.Fatal(err)
	}
	_, set := open(t, Config{Dir: ws, Servers: servers, Taken: []string{"read_file", "write_file"}})

	names := set.Names()
	for _, want := range []string{"fs__read_text_file", "fs__write_file", "fs__list_directory"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v lack %s", names, want)
		}
	}
	if tl, _ := set.Get("fs__read_text_file"); tl.Class() != tool.Read {
		t.Errorf("read_text_file's class = %s, want read", tl.Class())
	}

	r := set.Call(context.Background(), "fs__read_text_file", []byte(`{"path":"README.md"}`))
	if r.IsError || !strings.Contains(r.Content, "# hello") {
		t.Fatalf("read_text_file = %+v", r)
	}
	r = set.Call(context.Background(), "fs__write_file", []byte(`{"path":"notes.md","content":"written by the server"}`))
	if r.IsError {
		t.Fatalf("write_file = %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.md")); err != nil || string(b) != "written by the server" {
		t.Fatalf("notes.md = %q, %v", b, err)
	}
	r = set.Call(context.Background(), "fs__read_text_file", []byte(`{"path":"`+filepath.Join(outside, "secret.txt")+`"}`))
	if !r.IsError || strings.Contains(r.Content, "key") {
		t.Fatalf("reading outside the workspace = %+v, want an error", r)
	}
	r = set.Call(context.Background(), "fs__read_text_file", []byte(`{"path":"missing.md"}`))
	if !r.IsError {
		t.Fatalf("reading a missing file = %+v, want an error", r)
	}
}
