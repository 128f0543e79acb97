package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nightshift-dev/nightshift/internal/testenv"
)

// serverEnv makes the test binary an MCP server on its stdin and stdout
// (TestMain), built with the same SDK as the client: the value says which
// kind.
const serverEnv = "NIGHTSHIFT_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(serverEnv) {
	case "":
		testenv.Scrub()
		os.Exit(m.Run())
	case "stdio":
		if err := testServer(func() { os.Exit(3) }).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "probe":
		if err := probeServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "flood":
		// A server that lists more tools than the model should be sent.
		s := sdk.NewServer(&sdk.Implementation{Name: "flood", Version: "1"}, nil)
		for i := range MaxServerTools + 1 {
			sdk.AddTool(s, &sdk.Tool{Name: fmt.Sprintf("t%d", i), Description: "A tool."},
				func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{}, nil, nil
				})
		}
		if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "refuse":
		// A server that never starts says why on stderr.
		fmt.Fprintln(os.Stderr, "cannot open the database: permission denied")
		os.Exit(1)
	}
}

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

type noIn struct{}

// testServer is the server the tests talk to: echo answers, fail fails as
// a tool does, boom fails as a protocol error, pid says which process
// answers, env shows its environment, and die ends the server in the middle of a call.
func testServer(die func()) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fail."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the disk is full")
		})
	s.AddTool(&sdk.Tool{Name: "boom", Description: "A protocol error.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return nil, fmt.Errorf("internal failure")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "The server's process."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(os.Getpid())}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "The server's environment, one NAME=VALUE a line."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "die", Description: "End the server."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			die()
			select {} // the server is gone before it answers
		})
	return s
}

// httpServer serves testServer over streamable HTTP. A call of die cuts
// the connection it came on, as a crashed server's would be; calls counts
// the calls of each tool that reached it.
func httpServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var dies atomic.Int32
	s := testServer(nil)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"name":"die"`)) {
			dies.Add(1)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &dies
}
