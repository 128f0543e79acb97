package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/sandbox/sandboxtest"
)

type pathInput struct {
	Path string `json:"path" jsonschema:"a path"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// probeServer tells where it runs: its folder, its roots (asked for once
// the session is initialized, as the reference filesystem server does,
// on the last protocol version that has an initialized notification),
// and what it can read and write.
func probeServer() *sdk.Server {
	roots := make(chan string, 1)
	s := sdk.NewServer(&sdk.Implementation{Name: "probe", Version: "1"}, &sdk.ServerOptions{
		SupportedProtocolVersions: []string{"2025-11-25"},
		InitializedHandler: func(ctx context.Context, req *sdk.InitializedRequest) {
			go func() {
				//lint:ignore SA1019 the reference filesystem server still asks for roots, and so does this stand-in
				res, err := req.Session.ListRoots(context.WithoutCancel(ctx), nil)
				if err != nil {
					roots <- "error: " + err.Error()
					return
				}
				var uris []string
				for _, r := range res.Roots {
					uris = append(uris, r.URI)
				}
				roots <- strings.Join(uris, "\n")
			}()
		},
	})
	sdk.AddTool(s, &sdk.Tool{Name: "cwd", Description: "The server's working directory."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			wd, err := os.Getwd()
			return text(wd), nil, err
		})
	sdk.AddTool(s, &sdk.Tool{Name: "roots", Description: "The client's roots."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ noIn) (*sdk.CallToolResult, any, error) {
			select {
			case r := <-roots:
				roots <- r
				return text(r), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "cat", Description: "Read a file."},
		func(_ context.Context, _ *sdk.CallToolRequest, in pathInput) (*sdk.CallToolResult, any, error) {
			b, err := os.ReadFile(in.Path)
			if err != nil {
				return text("refused: " + err.Error()), nil, nil
			}
			return text("read: " + string(b)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "touch", Description: "Write a file."},
		func(_ context.Context, _ *sdk.CallToolRequest, in pathInput) (*sdk.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte("x"), 0o644); err != nil {
				return text("refused: " + err.Error()), nil, nil
			}
			return text("written"), nil, nil
		})
	return s
}

// probe is the test binary as the probe server.
func probe(t *testing.T, name string) Server {
	t.Helper()
	t.Setenv(serverEnv, "probe")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: name, Command: []string{exe}, Env: []string{serverEnv}}
}

// Regression (issue 25): stdio servers started in the workspace folder,
// outside the sandbox, so that ./srv.py for python3 -m srv, or a local
// node_modules for npx, replaced the server the next run started.
func TestAStdioServerStartsOutsideTheWorkspaceWithItAsItsRoot(t *testing.T) {
	ws := t.TempDir()
	tb, set := open(t, Config{Dir: ws, Servers: []Server{probe(t, "p")}})
	cwd := call(set, "p__cwd", `{}`).Content
	if within(cwd, ws) || cwd == "" {
		t.Errorf("the server started in %s, inside the workspace %s", cwd, ws)
	}
	if got, want := call(set, "p__roots", `{}`).Content, "file://"+mustReal(t, ws); got != want {
		t.Errorf("roots = %q, want %q", got, want)
	}
	tb.Close()
	if _, err := os.Stat(cwd); err == nil {
		t.Errorf("the start folder %s is left after Close", cwd)
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// bin writes an executable script named name into dir.
func bin(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\ntouch \"$(dirname \"$0\")/PWNED\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAStdioServerThatWouldRunWhatTheWorkspaceHoldsIsRefused(t *testing.T) {
	ws := t.TempDir()
	tools := t.TempDir() // programs outside the workspace
	for _, p := range []string{"python3", "node", "npx", "mcp-server"} {
		bin(t, tools, p)
	}
	bin(t, filepath.Join(ws, "node_modules", ".bin"), "planted")
	bin(t, filepath.Join(ws, "bin"), "mcp-server")
	for name, content := range map[string]string{"srv.py": "", "server.js": "", "pkg/__init__.py": "", "lib/x.js": ""} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ws, "node_modules", ".bin", "planted"), filepath.Join(tools, "linked")); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + tools + ":/usr/bin:/bin"
	tests := []struct {
		name    string
		command []string
		env     []string
		why     string
	}{
		{"a planted ./node_modules/.bin program", []string{filepath.Join(ws, "node_modules", ".bin", "planted")}, nil, "its program"},
		{"a program that links into the workspace", []string{"linked"}, nil, "its program"},
		{"a program found first in a PATH entry inside the workspace", []string{"mcp-server"}, []string{"PATH=" + filepath.Join(ws, "bin") + ":" + tools}, "its program"},
		{"python3 -m srv with ./srv.py", []string{"python3", "-m", "srv"}, nil, "would import"},
		{"python3 -m pkg with ./pkg/", []string{"python3", "-mpkg"}, nil, "would import"},
		{"python3 srv.py", []string{"python3", "srv.py"}, nil, "names the file"},
		{"node ./server.js", []string{"node", "./server.js"}, nil, "names the file"},
		{"node . (a package's main)", []string{"node", "."}, nil, "runs code from"},
		{"npx ./lib", []string{"npx", "-y", "./lib"}, nil, "the package"},
		{"npx --package=file:lib", []string{"npx", "--package=file:" + filepath.Join(ws, "lib"), "x"}, nil, "the package"},
		{"a flag's value", []string{"mcp-server", "--config=./server.js"}, nil, "names the file"},
		{"NODE_OPTIONS=--require", []string{"node", "/opt/server.js"}, []string{"NODE_OPTIONS=--require " + filepath.Join(ws, "lib", "x.js")}, "NODE_OPTIONS"},
		{"PYTHONPATH", []string{"python3", "-m", "other"}, []string{"PYTHONPATH=/opt/lib:" + ws}, "PYTHONPATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := append([]string{path}, tt.env...)
			_, err := Open(context.Background(), Config{Dir: ws, Env: env, Servers: []Server{{Name: "srv", Command: tt.command}}})
			if !errors.Is(err, ErrInWorkspace) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.why) ||
				!strings.Contains(err.Error(), "trust_workspace: true under srv") {
				t.Errorf("Open = %v; want it refused, saying %q and how to allow it", err, tt.why)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(ws, "node_modules", ".bin", "PWNED")); err == nil {
		t.Error("a planted program ran")
	}

	t.Run("a folder of the workspace as a server's data is fine", func(t *testing.T) {
		l, err := resolve(Server{Name: "fs", Command: []string{"mcp-server", ".", "./lib"}}, mustReal(t, ws), t.TempDir(), []string{path})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{filepath.Join(tools, "mcp-server"), mustReal(t, ws), filepath.Join(mustReal(t, ws), "lib")}; fmt.Sprint(l.argv) != fmt.Sprint(want) {
			t.Errorf("argv = %q, want %q", l.argv, want)
		}
	})
	t.Run("npx's own arguments after the package are the server's", func(t *testing.T) {
		if _, err := resolve(Server{Name: "fs", Command: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}}, mustReal(t, ws), t.TempDir(), []string{path}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("trusted by name, it starts in the workspace", func(t *testing.T) {
		s := Server{Name: "srv", Command: []string{filepath.Join(ws, "node_modules", ".bin", "planted")}}
		servers := []Server{s}
		if err := TrustWorkspace(servers, "srv"); err != nil {
			t.Fatal(err)
		}
		l, err := resolve(servers[0], mustReal(t, ws), "", []string{"PATH=" + filepath.Join(ws, "bin") + ":/bin"})
		if err != nil || l.dir != mustReal(t, ws) || !strings.Contains(l.env[len(l.env)-1], filepath.Join(ws, "bin")) {
			t.Errorf("launch %+v, %v", l, err)
		}
		if err := TrustWorkspace(servers, "other"); !errors.Is(err, ErrConfig) {
			t.Errorf("an unknown server: %v", err)
		}
	})
}

func TestTheTrustWorkspaceSwitchIsForStdioServers(t *testing.T) {
	if err := (Server{Name: "x", URL: "https://example.com/mcp", TrustWorkspace: true}).Check(); !errors.Is(err, ErrConfig) {
		t.Errorf("trust_workspace on a URL server: %v", err)
	}
	servers := []Server{{Name: "x", URL: "https://example.com/mcp"}}
	if err := TrustWorkspace(servers, "x"); !errors.Is(err, ErrConfig) {
		t.Errorf("TrustWorkspace on a URL server: %v", err)
	}
}

// A stdio server runs in the sandbox of the run's commands where that is
// bwrap: the workspace it may change (not its .git), the home's keys it
// may not read, the rest it may not change (the docs called this a gap).
func TestAStdioServerRunsInTheCommandsSandbox(t *testing.T) {
	outside, err := os.MkdirTemp("/var/tmp", "nightshift-mcp-")
	if err != nil {
		t.Skipf("needs a folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	home := filepath.Join(outside, "home")
	for name, content := range map[string]string{".ssh/id_ed25519": "made-up key\n", "notes.txt": "readable\n"} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.Bwrap, Dir: ws})
	sandboxtest.NeedBwrap(t, err)
	_, set := open(t, Config{Dir: ws, Sandbox: sb, Env: sb.OutsideEnv(), Servers: []Server{probe(t, "p")}})
	start := call(set, "p__cwd", `{}`).Content
	for _, tt := range []struct{ tool, path, want string }{
		{"touch", filepath.Join(start, "x"), "refused"},
		{"touch", filepath.Join(ws, "made.txt"), "written"},
		{"touch", filepath.Join(ws, ".git", "config"), "refused"},
		{"touch", filepath.Join(home, "planted"), "refused"},
		{"cat", filepath.Join(home, ".ssh", "id_ed25519"), "refused"},
		{"cat", filepath.Join(home, "notes.txt"), "read: readable"},
	} {
		r := call(set, "p__"+tt.tool, fmt.Sprintf(`{"path":%q}`, tt.path))
		if strings.TrimSpace(r.Content) != tt.want && !(strings.HasPrefix(tt.want, "refused") && strings.HasPrefix(r.Content, "refused")) {
			t.Errorf("%s %s = %q, want %q", tt.tool, tt.path, r.Content, tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err != nil {
		t.Errorf("the server's write in the workspace did not land: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "planted")); err == nil {
		t.Error("the server wrote outside the workspace")
	}
}
