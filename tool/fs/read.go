package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// DefaultReadLimit is how many bytes read_file shows when Limit is zero.
const DefaultReadLimit = 256 << 10

// ReadFile is the read_file tool: it returns a text file's content.
type ReadFile struct {
	root *workspace.Root
	// Limit caps the bytes returned; a longer file is cut with a marker
	// that says so. Zero means DefaultReadLimit (256 KiB).
	Limit int
	// MaxFileSize is the largest file it reads at all (Config); zero
	// means DefaultMaxFileSize.
	MaxFileSize int64
}

var _ tool.Tool = (*ReadFile)(nil)

// NewReadFile returns read_file over r.
func NewReadFile(r *workspace.Root) *ReadFile { return &ReadFile{root: r} }

// Spec describes read_file.
func (t *ReadFile) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "read_file",
		Description: "Read a text file in the workspace and return its content. Long files are cut off with a marker saying how much was shown.",
		InputSchema: json.RawMessage(pathOnlySchema),
	}
}

// Class is Read.
func (t *ReadFile) Class() tool.Class { return tool.Read }

// Run reads the file.
func (t *ReadFile) Run(_ context.Context, input json.RawMessage) tool.Result {
	var in struct {
		Path string `json:"path"`
	}
	if res, ok := decode("read_file", input, &in); !ok {
		return res
	}
	limit := t.Limit
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	if err := notRegular(t.root, "read_file", in.Path); err != nil {
		return failure(in.Path, "file", err)
	}
	if res, big := checkSize(t.root, "read_file", in.Path, Config{t.MaxFileSize}.maxFileSize()); big {
		return res
	}
	data, size, err := t.root.ReadHead(in.Path, int64(limit))
	if err != nil {
		return failure(in.Path, "file", err)
	}
	if bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 {
		return tool.Error(fmt.Sprintf("%s is a binary file (%d bytes); read_file shows text only", in.Path, size))
	}
	if size == 0 {
		return tool.OK(fmt.Sprintf("(%s is empty)", in.Path))
	}
	if int64(len(data)) < size {
		data = cutRune(data)
		return tool.OK(fmt.Sprintf("%s\n[truncated: showing the first %d of %d bytes of %s]", data, len(data), size, in.Path))
	}
	return tool.OK(string(data))
}

// cutRune drops a multi-byte character split by the limit, so the model
// never sees half a character.
func cutRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// SchemaPrechecked: the schema is a constant that TestEveryToolsSchemaCompiles compiles.
func (t *ReadFile) SchemaPrechecked() {}
