package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// DefaultListLimit is how many entries list_dir shows when Limit is zero.
const DefaultListLimit = 1000

// ListDir is the list_dir tool: it lists a directory, one entry a line,
// sorted by name: "name/" for a directory, "name  N bytes" for a file.
// The state folder .nightshift is never listed.
type ListDir struct {
	root *workspace.Root
	// Limit caps the entries listed; the rest are counted. Zero means
	// DefaultListLimit (1000).
	Limit int
}

var _ tool.Tool = (*ListDir)(nil)

// NewListDir returns list_dir over r.
func NewListDir(r *workspace.Root) *ListDir { return &ListDir{root: r} }

// Spec describes list_dir.
func (t *ListDir) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "list_dir",
		Description: `List a directory in the workspace: one entry a line, sorted, directories with a trailing "/", files with their size. Use "." for the workspace root.`,
		InputSchema: json.RawMessage(pathOnlySchema),
	}
}

// Class is Read.
func (t *ListDir) Class() tool.Class { return tool.Read }

// Run lists the directory.
func (t *ListDir) Run(_ context.Context, input json.RawMessage) tool.Result {
	var in struct {
		Path string `json:"path"`
	}
	if res, ok := decode("list_dir", input, &in); !ok {
		return res
	}
	fi, err := t.root.Stat(in.Path)
	if err != nil {
		return failure(in.Path, "directory", err)
	}
	if !fi.IsDir() {
		return tool.Error(fmt.Sprintf("%s is a file, not a directory; use read_file to read it", in.Path))
	}
	entries, err := t.root.ReadDir(in.Path)
	if err != nil {
		return failure(in.Path, "directory", err)
	}
	if len(entries) == 0 {
		return tool.OK(fmt.Sprintf("(%s is empty)", in.Path))
	}
	limit := t.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var b strings.Builder
	for i, e := range entries {
		if i == limit {
			fmt.Fprintf(&b, "[... and %d more entries]\n", len(entries)-limit)
			break
		}
		b.WriteString(t.line(path.Join(in.Path, e.Name()), e.Name()))
		b.WriteByte('\n')
	}
	return tool.OK(strings.TrimSuffix(b.String(), "\n"))
}

// line describes one entry. A symlink is shown as what it leads to, or,
// when that is outside the workspace or missing, as a link that cannot be
// followed, so the model does not try.
func (t *ListDir) line(rel, name string) string {
	fi, err := t.root.Stat(rel)
	switch {
	case err != nil:
		return name + "  (symlink that cannot be followed)"
	case fi.IsDir():
		return name + "/"
	default:
		return fmt.Sprintf("%s  %d bytes", name, fi.Size())
	}
}

// SchemaPrechecked: the schema is a constant that TestEveryToolsSchemaCompiles compiles.
func (t *ListDir) SchemaPrechecked() {}
