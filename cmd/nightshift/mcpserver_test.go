package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

// mcpTestServer is `mcp-test-server`, an MCP server on stdio for the
// scripts, built with the SDK nightshift's client is built on: echo
// answers, fail fails as a tool does, env shows the server's environment. Given an argument "refuse", it
// never starts, and says why on stderr.
func mcpTestServer() {
	if len(os.Args) > 1 && os.Args[1] == "refuse" {
		fmt.Fprintln(os.Stderr, "mcp-test-server: cannot reach the database")
		os.Exit(1)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "mcp-test-server", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fail."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the issue tracker is read-only today")
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "The server's environment, one NAME=VALUE a line."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
