package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// EditFile is the edit_file tool: it replaces the one occurrence of old
// in a file with new. The file keeps its mode.
//
// It is idempotent: when old is no longer there but new is, the edit was
// already made (a retried call, or a model that lost track) and the tool
// says "already applied" without touching the file. An occurrence of old
// that lies inside an occurrence of new does not count, so an edit that
// appends to a line ("X" -> "X and Y") is not applied twice either.
type EditFile struct {
	root *workspace.Root
	// MaxFileSize is the largest file it edits, and the largest it
	// leaves (Config); zero means DefaultMaxFileSize.
	MaxFileSize int64
}

var _ tool.Tool = (*EditFile)(nil)

// NewEditFile returns edit_file over r.
func NewEditFile(r *workspace.Root) *EditFile { return &EditFile{root: r} }

// Spec describes edit_file.
func (t *EditFile) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "edit_file",
		Description: "Replace one exact piece of text in an existing file. old must occur exactly once in the file, character for character (including whitespace and indentation); include enough surrounding lines to make it unique. To create a file or replace all of it, use write_file.",
		InputSchema: json.RawMessage(`{
	"type": "object",
	"properties": {` + pathProperty + `,
		"old": {"type": "string", "minLength": 1, "description": "The exact text to replace; it must occur exactly once in the file."},
		"new": {"type": "string", "description": "The text to put in its place."}
	},
	"required": ["path", "old", "new"],
	"additionalProperties": false
}`),
	}
}

// Class is Write.
func (t *EditFile) Class() tool.Class { return tool.Write }

// Run makes the edit.
func (t *EditFile) Run(ctx context.Context, input json.RawMessage) tool.Result {
	var in struct {
		Path string `json:"path"`
		Old  string `json:"old"`
		New  string `json:"new"`
	}
	if res, ok := decode("edit_file", input, &in); !ok {
		return res
	}
	switch {
	case in.Old == "":
		return tool.Error("edit_file: old is empty; give the exact text to replace (to create a file, use write_file)")
	case in.Old == in.New:
		return tool.Error("edit_file: old and new are the same; there is nothing to change")
	}
	if err := protectedWrite(ctx, t.root, "edit_file", in.Path); err != nil {
		return failure(in.Path, "file", err)
	}
	if err := notRegular(t.root, "edit_file", in.Path); err != nil {
		return failure(in.Path, "file", err)
	}
	if fi, err := t.root.Stat(in.Path); err == nil && fi.IsDir() {
		return tool.Error(isDir(in.Path))
	}
	limit := Config{t.MaxFileSize}.maxFileSize()
	line := 0
	changed, err := t.root.EditLimited(in.Path, limit, func(b []byte) ([]byte, error) {
		content := string(b)
		at, err := locate(in.Path, content, in.Old, in.New)
		if err != nil || at < 0 {
			return b, err
		}
		if n := int64(len(content) - len(in.Old) + len(in.New)); n > limit {
			return b, toolError(fmt.Sprintf("edit_file: the edited %s would be %d bytes, past the file tools' limit of %d bytes (--max-file-size, max_file_size)", in.Path, n, limit))
		}
		line = strings.Count(content[:at], "\n") + 1
		return []byte(content[:at] + in.New + content[at+len(in.Old):]), nil
	})
	switch {
	case err != nil:
		return failure(in.Path, "file", err)
	case !changed:
		return tool.OK(fmt.Sprintf("already applied: %s contains the new text and not the old; nothing changed", in.Path))
	}
	return tool.OK(fmt.Sprintf("edited %s at line %d", in.Path, line))
}

// locate returns where the one occurrence of old that is not part of an
// occurrence of new starts, or -1 when there is none but new is present
// (already applied). Anything else is an error for the model.
func locate(path, content, old, new string) (int, error) {
	covered := spans(content, new)
	var found []int
	for _, at := range spans(content, old) {
		inside := false
		for _, s := range covered {
			if at[0] >= s[0] && at[1] <= s[1] {
				inside = true
				break
			}
		}
		if !inside {
			found = append(found, at[0])
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return 0, toolError(fmt.Sprintf("old occurs %d times in %s; include more of the surrounding text so that it matches exactly once", len(found), path))
	case len(covered) > 0:
		return -1, nil
	}
	return 0, toolError(fmt.Sprintf("old was not found in %s%s; read_file it again and copy the text exactly, including whitespace and line breaks", path, nearMiss(content, old)))
}

// nearMiss names the likeliest reason a model's old text did not match,
// when it is one of the common ones, so the next try can fix it.
func nearMiss(content, old string) string {
	switch {
	case strings.Contains(content, "\r\n") && strings.Contains(strings.ReplaceAll(content, "\r\n", "\n"), old):
		return " (the file has Windows line endings, \\r\\n, and old has \\n)"
	case strings.TrimSpace(old) != "" && strings.TrimSpace(old) != old && strings.Contains(content, strings.TrimSpace(old)):
		return " (it is there without the leading or trailing whitespace of old)"
	}
	return ""
}

// spans returns the [start, end) of each non-overlapping occurrence of
// sub in s.
func spans(s, sub string) [][2]int {
	if sub == "" {
		return nil
	}
	var out [][2]int
	for from := 0; ; {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			return out
		}
		out = append(out, [2]int{from + i, from + i + len(sub)})
		from += i + len(sub)
	}
}

// SchemaPrechecked: the schema is a constant that TestEveryToolsSchemaCompiles compiles.
func (t *EditFile) SchemaPrechecked() {}
