package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nightshift-dev/nightshift/tool"
)

// result turns a server's answer into what the model reads: its text,
// other content named by kind and size (the model is not sent images or
// blobs through a text result), and the structured content when there
// is nothing else. isError stays an error.
func result(r *sdk.CallToolResult) tool.Result {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, content(c))
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if r.IsError {
		if text == "" {
			text = "the tool failed and said nothing more"
		}
		return tool.Error(text)
	}
	return tool.OK(text)
}

func content(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource: %s %s]", c.URI, c.Name)
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return "[resource]"
		}
		if c.Resource.Text != "" {
			return c.Resource.Text
		}
		return fmt.Sprintf("[resource: %s, %s, %d bytes]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))
	}
	return fmt.Sprintf("[%T content]", c)
}
