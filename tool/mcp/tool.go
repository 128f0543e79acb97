package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

// mcpTool is one server tool in the run.
type mcpTool struct {
	conn  *conn
	name  string // the server's name for it
	spec  llm.ToolSpec
	class tool.Class
}

var (
	_ tool.Tool   = (*mcpTool)(nil)
	_ tool.Opaque = (*mcpTool)(nil)
)

// newTool maps a listed tool into the run under runName.
func newTool(c *conn, t *sdk.Tool, runName string, class tool.Class) (*mcpTool, error) {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if string(schema) == "null" {
		schema = []byte(`{"type":"object"}`)
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return &mcpTool{conn: c, name: t.Name, class: class, spec: llm.ToolSpec{
		Name:        runName,
		Description: fmt.Sprintf("%s (tool %q of the MCP server %s)", desc, t.Name, c.server.Name),
		InputSchema: schema,
	}}, nil
}

func (t *mcpTool) Spec() llm.ToolSpec { return t.spec }
func (t *mcpTool) Class() tool.Class  { return t.class }

// Opaque says that what the tool does is not known here: whatever class
// a person gave it, a failed call is never repeated.
func (t *mcpTool) Opaque() {}

// Run calls the tool on its server.
func (t *mcpTool) Run(ctx context.Context, input json.RawMessage) tool.Result {
	return t.conn.call(ctx, t.spec.Name, t.name, input)
}
