package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
)

const notEmptyName = "not-empty"

type notEmptyRule struct{}

// NotEmpty fails an empty or whitespace-only final answer. The Verifier
// always runs it: an empty answer is the cheapest silent failure to catch.
func NotEmpty() Rule { return notEmptyRule{} }

func (notEmptyRule) Name() string   { return notEmptyName }
func (notEmptyRule) String() string { return notEmptyName }

func (notEmptyRule) Check(_ context.Context, in Input) *Failure {
	if strings.TrimSpace(in.Answer) == "" {
		return &Failure{Check: notEmptyName, Message: "not-empty: the final answer is empty"}
	}
	return nil
}

// fileRule reads one workspace file and tests its content. test returns ""
// when the content passes, and otherwise the measured-against-required part
// of the message.
type fileRule struct {
	spec string
	name string
	path string
	test func(content []byte) string
}

func (r *fileRule) Name() string   { return r.name }
func (r *fileRule) String() string { return r.spec }

func (r *fileRule) Check(_ context.Context, in Input) *Failure {
	data, err := readWorkspaceFile(in.Dir, r.path)
	if err != nil {
		return r.fail(describeFileError(err))
	}
	if msg := r.test(data); msg != "" {
		return r.fail(msg)
	}
	return nil
}

func (r *fileRule) fail(msg string) *Failure {
	return &Failure{Check: r.name, Message: fmt.Sprintf("%s %s: %s", r.name, r.path, msg)}
}

// countRule builds min-chars, max-chars and min-words. The message puts the
// count the model never made beside the figure required:
// "min-chars post.md: 3341 < 4000".
func countRule(spec, kind, path string, n int) Rule {
	measure, op := Chars, "<"
	switch kind {
	case "min-words":
		measure = Words
	case "max-chars":
		op = ">"
	}
	return &fileRule{spec: spec, name: kind, path: path, test: func(b []byte) string {
		got := measure(string(b))
		if (op == "<" && got < n) || (op == ">" && got > n) {
			return fmt.Sprintf("%d %s %d", got, op, n)
		}
		return ""
	}}
}

func containsRule(spec, path, text string) Rule {
	return &fileRule{spec: spec, name: "contains", path: path, test: func(b []byte) string {
		if strings.Contains(string(b), text) {
			return ""
		}
		return fmt.Sprintf("%q not found", text)
	}}
}

func matchesRule(spec, path string, re *regexp.Regexp) Rule {
	return &fileRule{spec: spec, name: "matches", path: path, test: func(b []byte) string {
		if re.Match(b) {
			return ""
		}
		return fmt.Sprintf("no match for %q", re.String())
	}}
}

// existsRule passes when PATH exists in the workspace, file or folder.
type existsRule struct {
	spec string
	path string
}

func (r *existsRule) Name() string   { return "exists" }
func (r *existsRule) String() string { return r.spec }

func (r *existsRule) Check(_ context.Context, in Input) *Failure {
	root, err := os.OpenRoot(in.Dir)
	if err == nil {
		defer root.Close()
		_, err = root.Stat(r.path)
	}
	if err != nil {
		return &Failure{Check: "exists", Message: fmt.Sprintf("exists %s: %s", r.path, describeFileError(err))}
	}
	return nil
}

// errIsDir reports a rule pointed at a folder where it needs a file.
var errIsDir = errors.New("is a folder, not a file")

// readWorkspaceFile reads path inside dir through os.Root, so that neither
// ".." nor a symlink can lead a rule outside the workspace.
func readWorkspaceFile(dir, path string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if st, err := root.Stat(path); err != nil {
		return nil, err
	} else if st.IsDir() {
		return nil, errIsDir
	}
	return root.ReadFile(path)
}

// describeFileError turns a read failure into the words of a message: a
// missing file says it is missing.
func describeFileError(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, errIsDir):
		return errIsDir.Error()
	case errors.Is(err, fs.ErrPermission):
		return "not readable (permission denied)"
	case strings.Contains(err.Error(), "escapes"):
		// os.Root's refusal of a symlink that points out of the workspace.
		return "points outside the workspace"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
