package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/internal/diff"
	"github.com/nightshift-dev/nightshift/internal/terminal"
)

// Bounds of what Describe shows and reads.
const (
	maxSummary      = 200     // characters of an audit summary
	maxPreviewLines = 60      // lines of a diff or a new file shown to a person
	maxPreviewRead  = 1 << 20 // bytes of a file read for a preview
	// previewTimeout bounds the reading of a file for a preview: a
	// preview is never a reason for a run to hang.
	previewTimeout = 2 * time.Second
)

// escapedNote ends a preview that had characters escaped, so that a
// person knows the backslashes were not typed.
const escapedNote = "(characters a terminal would act on are shown escaped, as \\r, \\x1b or \\u202e)"

// Describe returns what a call will do, as a one-line summary for the
// audit log and a preview for the person asked to approve it: for
// write_file the path, the size and whether it creates or overwrites a
// file (with the diff of an overwrite); for edit_file the diff of the
// edit in its context, read from files; for run_command the exact command
// line; for any other tool its name and input. files may be nil.
//
// Both are safe to print on a terminal: control characters and those
// that reorder or hide text are escaped (see Escape), and the preview
// then says so. Only regular files are read, at most their first MiB,
// within two seconds: a FIFO or a device in the workspace cannot hang
// the gate.
func Describe(files fs.FS, toolName string, input json.RawMessage) (summary, preview string) {
	summary, preview = describe(files, toolName, input)
	summary = Escape(summary)
	if p, escaped := escape(preview); escaped {
		preview = strings.TrimRight(p, "\n") + "\n" + escapedNote
	}
	return summary, preview
}

func describe(files fs.FS, toolName string, input json.RawMessage) (summary, preview string) {
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
		return oneLine("run_command: " + *in.Command), commandPreview(*in.Command)
	case toolName == "write_file" && in.Path != nil && in.Content != nil:
		return describeWrite(files, *in.Path, *in.Content)
	case toolName == "edit_file" && in.Path != nil && in.Old != nil && in.New != nil:
		return describeEdit(files, *in.Path, *in.Old, *in.New)
	}
	compact := canonical(input)
	return oneLine(toolName + " " + compact), toolName + " " + clip(compact, 2000)
}

// commandPreview shows a command line on one line, each of its line
// breaks as \n, and says how many lines it has: forty line breaks
// pushed the line that mattered off the screen, above "$ echo ok" and
// the question.
func commandPreview(command string) string {
	shown := "$ " + terminal.Escape(command)
	n := strings.Count(strings.TrimSuffix(command, "\n"), "\n") + 1
	if n == 1 {
		shown += "\n(run with sh -c in the workspace folder)"
	} else {
		shown += fmt.Sprintf("\n(the command has %d lines, shown on one: each \\n is a line break; run with sh -c in the workspace folder)", n)
	}
	if terminal.Lines(command) != command {
		shown += "\n" + escapedNote
	}
	return shown
}

// describeWrite and describeEdit show the path on one line, its line
// breaks as \n: a path is a field of the preview's first line, which a
// line break in it would push off the top of the question.
func describeWrite(files fs.FS, p, content string) (string, string) {
	old, size, err := readFile(files, p)
	q := terminal.Escape(p)
	var nr *notRegularError
	switch {
	case errors.As(err, &nr):
		summary := fmt.Sprintf("write_file %s (%d bytes, over %s)", q, len(content), nr.kind)
		return oneLine(summary), summary + "\n(the file tools refuse to write anything but a regular file)"
	case err != nil:
		summary := fmt.Sprintf("write_file %s (%d bytes, new file)", q, len(content))
		return oneLine(summary), summary + "\n" + firstLines(content, maxPreviewLines)
	}
	summary := fmt.Sprintf("write_file %s (%d bytes, overwrites a file of %d bytes)", q, len(content), size)
	if int64(len(old)) < size {
		return oneLine(summary), summary + "\n(the file is too large to show a diff; the new content begins:)\n" + firstLines(content, maxPreviewLines)
	}
	d := diff.Unified("a/"+q, "b/"+q, old, []byte(content))
	if d == "" {
		d = "(the same content: nothing changes)\n"
	}
	return oneLine(summary), summary + "\n" + firstLines(d, maxPreviewLines)
}

func describeEdit(files fs.FS, p, old, new string) (string, string) {
	q := terminal.Escape(p)
	summary := fmt.Sprintf("edit_file %s (replace %d bytes with %d bytes)", q, len(old), len(new))
	content, size, err := readFile(files, p)
	var nr *notRegularError
	if errors.As(err, &nr) {
		return oneLine(summary), summary + fmt.Sprintf("\n(%s is %s; the file tools refuse to edit anything but a regular file)", q, nr.kind)
	}
	if err == nil && int64(len(content)) == size {
		if i := bytes.Index(content, []byte(old)); i >= 0 {
			after := append(append(append([]byte(nil), content[:i]...), new...), content[i+len(old):]...)
			return oneLine(summary), summary + "\n" + firstLines(diff.Unified("a/"+q, "b/"+q, content, after), maxPreviewLines)
		}
	}
	// Without the file, show the replacement itself.
	return oneLine(summary), summary + "\n" + firstLines(diff.Unified("old", "new", []byte(old), []byte(new)), maxPreviewLines)
}

// notRegularError is a path that exists but is no regular file.
type notRegularError struct{ kind string }

func (e *notRegularError) Error() string { return "not a regular file: " + e.kind }

// kindOf names a file type for a person.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

// readFile reads at most maxPreviewRead bytes of p from files and returns
// them with the file's size. Only a regular file is read (a FIFO would
// block its reader until someone writes), and the read gives up after
// previewTimeout; a read that gave up is left to finish on its own.
func readFile(files fs.FS, p string) ([]byte, int64, error) {
	if files == nil {
		return nil, 0, fs.ErrNotExist
	}
	c := path.Clean(strings.TrimPrefix(p, "./"))
	if !fs.ValidPath(c) {
		return nil, 0, fs.ErrInvalid
	}
	fi, err := fs.Stat(files, c)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, &notRegularError{kindOf(fi.Mode())}
	}
	type read struct {
		data []byte
		size int64
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, size, err := readHead(files, c)
		done <- read{data, size, err}
	}()
	select {
	case r := <-done:
		return r.data, r.size, r.err
	case <-time.After(previewTimeout):
		return nil, 0, fmt.Errorf("%s could not be read within %s", p, previewTimeout)
	}
}

func readHead(files fs.FS, name string) ([]byte, int64, error) {
	f, err := files.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	// Checked again on the open file: the name may have been swapped.
	if !fi.Mode().IsRegular() {
		return nil, 0, &notRegularError{kindOf(fi.Mode())}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPreviewRead))
	return data, max(fi.Size(), int64(len(data))), err
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
