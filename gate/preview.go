package gate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/diff"
)

// Bounds of what Describe shows.
const (
	maxSummary      = 200 // characters of an audit summary
	maxPreviewLines = 60  // lines of a diff or a new file shown to a person
)

// Describe returns what a call will do, as a one-line summary for the
// audit log and a preview for the person asked to approve it: for
// write_file the path, the size and whether it creates or overwrites a
// file (with the diff of an overwrite); for edit_file the diff of the
// edit in its context, read from files; for run_command the exact command
// line; for any other tool its name and input. files may be nil.
func Describe(files fs.FS, toolName string, input json.RawMessage) (summary, preview string) {
	var in struct {
		Path    *string `json:"path"`
		Content *string `json:"content"`
		Old     *string `json:"old"`
		New     *string `json:"new"`
		Command *string `json:"command"`
	}
	json.Unmarshal(input, &in) //nolint:errcheck // a bad input falls through to the generic form
	switch {
	case toolName == "run_command" && in.Command != nil:
		return oneLine("run_command: " + *in.Command), "$ " + *in.Command + "\n(run with sh -c in the workspace folder)"
	case toolName == "write_file" && in.Path != nil && in.Content != nil:
		return describeWrite(files, *in.Path, *in.Content)
	case toolName == "edit_file" && in.Path != nil && in.Old != nil && in.New != nil:
		return describeEdit(files, *in.Path, *in.Old, *in.New)
	}
	compact := canonical(input)
	return oneLine(toolName + " " + compact), toolName + " " + clip(compact, 2000)
}

func describeWrite(files fs.FS, p, content string) (string, string) {
	old, err := readFile(files, p)
	if err != nil {
		summary := fmt.Sprintf("write_file %s (%d bytes, new file)", p, len(content))
		return oneLine(summary), summary + "\n" + firstLines(content, maxPreviewLines)
	}
	summary := fmt.Sprintf("write_file %s (%d bytes, overwrites a file of %d bytes)", p, len(content), len(old))
	d := diff.Unified("a/"+p, "b/"+p, old, []byte(content))
	if d == "" {
		d = "(the same content: nothing changes)\n"
	}
	return oneLine(summary), summary + "\n" + firstLines(d, maxPreviewLines)
}

func describeEdit(files fs.FS, p, old, new string) (string, string) {
	summary := fmt.Sprintf("edit_file %s (replace %d bytes with %d bytes)", p, len(old), len(new))
	content, err := readFile(files, p)
	if err == nil {
		if i := bytes.Index(content, []byte(old)); i >= 0 {
			after := append(append(append([]byte(nil), content[:i]...), new...), content[i+len(old):]...)
			return oneLine(summary), summary + "\n" + firstLines(diff.Unified("a/"+p, "b/"+p, content, after), maxPreviewLines)
		}
	}
	// Without the file, show the replacement itself.
	return oneLine(summary), summary + "\n" + firstLines(diff.Unified("old", "new", []byte(old), []byte(new)), maxPreviewLines)
}

// readFile reads p from files, if there are files and p is a path in them.
func readFile(files fs.FS, p string) ([]byte, error) {
	if files == nil {
		return nil, fs.ErrNotExist
	}
	c := path.Clean(strings.TrimPrefix(p, "./"))
	if !fs.ValidPath(c) {
		return nil, fs.ErrInvalid
	}
	return fs.ReadFile(files, c)
}

// oneLine makes s fit one line of the audit log.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	return clip(s, maxSummary)
}

// clip cuts s to n bytes (on a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// firstLines returns the first n lines of s, saying how many were left
// out.
func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("… (%d more lines)\n", len(lines)-n)
}
