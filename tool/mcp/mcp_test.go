package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/nightshift-dev/nightshift/tool"
)

// stdioServer is the test binary as an MCP server over stdio. The
// variable that makes it one is named in its env: a server gets no other
// variable of ours than the allow-listed ones.
func stdioServer(t *testing.T, name string) Server {
	t.Helper()
	t.Setenv(serverEnv, "stdio")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: name, Command: []string{exe}, Env: []string{serverEnv}}
}

// open opens servers and closes them when the test ends.
func open(t *testing.T, cfg Config) (*Toolbox, *tool.Set) {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	tb, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	set, err := tool.NewSet(tb.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	return tb, set
}

func call(set *tool.Set, name, input string) tool.Result {
	return set.Call(context.Background(), name, json.RawMessage(input))
}

// transports runs a test against the server over stdio and over HTTP.
func transports(t *testing.T, test func(t *testing.T, s Server)) {
	t.Run("over stdio", func(t *testing.T) { test(t, stdioServer(t, "srv")) })
	t.Run("over streamable HTTP", func(t *testing.T) {
		srv, _ := httpServer(t)
		test(t, Server{Name: "srv", URL: srv.URL})
	})
}

func TestAServersToolsJoinTheRunNamedAfterTheServer(t *testing.T) {
	transports(t, func(t *testing.T, s Server) {
		_, set := open(t, Config{Servers: []Server{s}})
		want := []string{"srv__boom", "srv__die", "srv__echo", "srv__env", "srv__fail", "srv__pid"}
		if got := set.Names(); !slices.Equal(got, want) {
			t.Fatalf("tools = %v, want %v", got, want)
		}
		for _, spec := range set.Specs() {
			if !strings.Contains(spec.Description, "MCP server srv") {
				t.Errorf("%s: description %q does not name the server", spec.Name, spec.Description)
			}
		}
		var schema map[string]any
		tl, _ := set.Get("srv__echo")
		if err := json.Unmarshal(tl.Spec().InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Fatalf("echo's schema = %s (%v)", tl.Spec().InputSchema, err)
		}
		if !strings.Contains(string(tl.Spec().InputSchema), `"text"`) {
			t.Errorf("echo's schema lost its property: %s", tl.Spec().InputSchema)
		}
	})
}

func TestAToolIsCalledOnItsServer(t *testing.T) {
	transports(t, func(t *testing.T, s Server) {
		_, set := open(t, Config{Servers: []Server{s}})
		if r := call(set, "srv__echo", `{"text":"hi"}`); r.IsError || r.Content != "echo: hi" {
			t.Fatalf("echo = %+v", r)
		}
	})
}

func TestAToolsFailureComesBackAsAnErrorResult(t *testing.T) {
	transports(t, func(t *testing.T, s Server) {
		_, set := open(t, Config{Servers: []Server{s}})
		r := call(set, "srv__fail", `{}`)
		if !r.IsError || !strings.Contains(r.Content, "the disk is full") || r.Transient {
			t.Fatalf("fail = %+v, want an error with the tool's words, not transient", r)
		}
		r = call(set, "srv__boom", `{}`)
		if !r.IsError || !strings.Contains(r.Content, "internal failure") {
			t.Fatalf("boom = %+v, want an error with the server's words", r)
		}
		// The server is alive after both.
		if r := call(set, "srv__echo", `{"text":"still here"}`); r.IsError {
			t.Fatalf("echo after failures = %+v", r)
		}
	})
}

func TestAServerThatDiesIsStartedAgainOnceThenItsToolsAnswerWithErrors(t *testing.T) {
	transports(t, func(t *testing.T, s Server) {
		_, set := open(t, Config{Servers: []Server{s}})
		first := call(set, "srv__pid", `{}`)
		r := call(set, "srv__die", `{}`)
		if !r.IsError || !strings.Contains(r.Content, "stopped during the call") ||
			!strings.Contains(r.Content, "started again") || !strings.Contains(r.Content, "not repeated") {
			t.Fatalf("die = %+v, want the server's death, its restart and that the call was not repeated", r)
		}
		second := call(set, "srv__pid", `{}`)
		if second.IsError {
			t.Fatalf("pid after a restart = %+v", second)
		}
		if s.URL == "" && second.Content == first.Content {
			t.Errorf("the same process (%s) answers after the restart", first.Content)
		}
		r = call(set, "srv__die", `{}`)
		if !r.IsError || !strings.Contains(r.Content, "restarted once") {
			t.Fatalf("second die = %+v, want the server given up", r)
		}
		r = call(set, "srv__echo", `{"text":"x"}`)
		if !r.IsError || !strings.Contains(r.Content, "cannot be used for the rest of this run") {
			t.Fatalf("echo on a dead server = %+v", r)
		}
	})
}

func TestAServerThatDiedBetweenCallsIsStartedAgainAndTheCallSent(t *testing.T) {
	tb, set := open(t, Config{Servers: []Server{stdioServer(t, "srv")}})
	pid := call(set, "srv__pid", `{}`)
	var n int
	if err := json.Unmarshal([]byte(pid.Content), &n); err != nil {
		t.Fatal(pid)
	}
	if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-tb.conns[0].ended // the client saw it go
	r := call(set, "srv__echo", `{"text":"again"}`)
	if r.IsError || r.Content != "echo: again" {
		t.Fatalf("echo after the server was killed between calls = %+v, want it sent to a new server", r)
	}
}

func TestAServerThatNeverStartsIsAConfigErrorWithItsStderr(t *testing.T) {
	exe, _ := os.Executable()
	t.Setenv(serverEnv, "refuse")
	_, err := Open(context.Background(), Config{Dir: t.TempDir(), Servers: []Server{{Name: "db", Command: []string{exe}, Env: []string{serverEnv}}}})
	var se *StartError
	if !errors.Is(err, ErrConfig) || !errors.As(err, &se) || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("err = %v, want a StartError with the server's stderr", err)
	}
	_, err = Open(context.Background(), Config{Servers: []Server{{Name: "web", URL: "http://127.0.0.1:1/mcp"}}})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("unreachable URL: err = %v, want ErrConfig", err)
	}
	_, err = Open(context.Background(), Config{Servers: []Server{{Name: "none", Command: []string{"/nonexistent/server"}}}})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("missing program: err = %v, want ErrConfig", err)
	}
}

func TestToolNamesThatCollideAreAConfigError(t *testing.T) {
	srv, _ := httpServer(t)
	_, err := Open(context.Background(), Config{Servers: []Server{{Name: "srv", URL: srv.URL}}, Taken: []string{"srv__echo"}})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "srv__echo") {
		t.Fatalf("err = %v, want a collision with the run's tool", err)
	}
	_, err = Open(context.Background(), Config{Servers: []Server{{Name: "srv", URL: srv.URL}, {Name: "srv", URL: srv.URL}}})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("err = %v, want two servers of one name refused", err)
	}
}

func TestClassesAreGivenPerServerAndPerTool(t *testing.T) {
	srv, _ := httpServer(t)
	servers := []Server{{Name: "srv", URL: srv.URL}}
	for _, rule := range []string{"srv=read", "srv__die=danger", "srv__fail=write"} {
		if err := SetClass(servers, rule); err != nil {
			t.Fatal(err)
		}
	}
	_, set := open(t, Config{Servers: servers})
	for name, want := range map[string]tool.Class{"srv__echo": tool.Read, "srv__die": tool.Danger, "srv__fail": tool.Write} {
		tl, _ := set.Get(name)
		if tl.Class() != want {
			t.Errorf("%s: class %s, want %s", name, tl.Class(), want)
		}
	}
	t.Run("danger by default", func(t *testing.T) {
		_, set := open(t, Config{Servers: []Server{{Name: "srv", URL: srv.URL}}})
		tl, _ := set.Get("srv__echo")
		if tl.Class() != tool.Danger {
			t.Fatalf("class %s, want danger", tl.Class())
		}
	})
	t.Run("a class for a tool the server does not have is refused", func(t *testing.T) {
		_, err := Open(context.Background(), Config{Servers: []Server{{Name: "srv", URL: srv.URL, Classes: map[string]tool.Class{"ecco": tool.Read}}}})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "echo") {
			t.Fatalf("err = %v, want the server's tools listed", err)
		}
	})
	t.Run("a class for a server not given is refused", func(t *testing.T) {
		if err := SetClass(servers, "github=read"); !errors.Is(err, ErrConfig) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestAnMCPToolsTimeoutIsNeverRetried(t *testing.T) {
	srv, _ := httpServer(t)
	servers := []Server{{Name: "srv", URL: srv.URL, Class: tool.Read}}
	_, set := open(t, Config{Servers: servers})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := set.Call(ctx, "srv__echo", json.RawMessage(`{"text":"x"}`))
	if !r.IsError || r.Transient {
		t.Fatalf("a call whose context ended = %+v, want an error that is not transient", r)
	}
	tl, _ := set.Get("srv__echo")
	if _, ok := tl.(tool.Opaque); !ok || tool.Captured(tl) {
		t.Fatalf("a read-class MCP tool: opaque %v, captured %v; want opaque, not captured", ok, tool.Captured(tl))
	}
	servers[0].Class = tool.Write
	_, set = open(t, Config{Servers: servers})
	tl, _ = set.Get("srv__echo")
	if !tool.Captured(tl) {
		t.Fatal("a write-class MCP tool is not captured before it runs")
	}
}

// Issue 25 (the trust review): a server's tool list was taken whole,
// and every tool's definition goes to the model with every call: one
// that listed thousands of tools (or definitions of megabytes) filled
// the model's window and the bill. One that lists more than
// MaxServerTools, or MaxServerToolBytes of definitions, does not start.
func TestAServerThatListsTooManyToolsDoesNotStart(t *testing.T) {
	s := stdioServer(t, "flood")
	t.Setenv(serverEnv, "flood")
	_, err := Open(context.Background(), Config{Dir: t.TempDir(), Servers: []Server{s}})
	var se *StartError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "more than 256 tools") {
		t.Fatalf("Open = %v, want a StartError saying the server lists too many tools", err)
	}
}
