package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nightshift-dev/nightshift/workspace"
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
	data, err := readFile(in, r.path)
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

// MinChars passes when the file at path, relative to the workspace, holds
// at least n characters (Unicode code points, as Chars counts them). Its
// FAIL puts the count the model never made beside the figure required:
// "min-chars post.md: 3341 < 4000". A path that leaves the workspace
// fails the check; ParseRule refuses it before the run.
func MinChars(path string, n int) Rule { return countRule("min-chars", path, n) }

// MaxChars passes when the file at path holds at most n characters.
func MaxChars(path string, n int) Rule { return countRule("max-chars", path, n) }

// MinWords passes when the file at path holds at least n words, as Words
// counts them (each CJK character is a word).
func MinWords(path string, n int) Rule { return countRule("min-words", path, n) }

// countRule builds min-chars, max-chars and min-words.
func countRule(kind, path string, n int) Rule {
	path = cleanPath(path)
	measure, op := Chars, "<"
	switch kind {
	case "min-words":
		measure = Words
	case "max-chars":
		op = ">"
	}
	spec := fmt.Sprintf("%s:%s:%d", kind, path, n)
	return &fileRule{spec: spec, name: kind, path: path, test: func(b []byte) string {
		got := measure(string(b))
		if (op == "<" && got < n) || (op == ">" && got > n) {
			return fmt.Sprintf("%d %s %d", got, op, n)
		}
		return ""
	}}
}

// Contains passes when the file at path contains text.
func Contains(path, text string) Rule {
	path = cleanPath(path)
	return &fileRule{spec: "contains:" + path + ":" + text, name: "contains", path: path, test: func(b []byte) string {
		if strings.Contains(string(b), text) {
			return ""
		}
		return fmt.Sprintf("%q not found", text)
	}}
}

// Matches passes when the content of the file at path matches re.
func Matches(path string, re *regexp.Regexp) Rule {
	path = cleanPath(path)
	return &fileRule{spec: "matches:" + path + ":" + re.String(), name: "matches", path: path, test: func(b []byte) string {
		if re.Match(b) {
			return ""
		}
		return fmt.Sprintf("no match for %q", re.String())
	}}
}

// cleanPath is a rule's path as the workspace names it: cleaned, with
// forward slashes.
func cleanPath(p string) string { return filepath.ToSlash(filepath.Clean(p)) }

// Exists passes when path exists in the workspace, file or folder.
func Exists(path string) Rule {
	path = cleanPath(path)
	return &existsRule{spec: "exists:" + path, path: path}
}

type existsRule struct {
	spec string
	path string
}

func (r *existsRule) Name() string   { return "exists" }
func (r *existsRule) String() string { return r.spec }

func (r *existsRule) Check(_ context.Context, in Input) *Failure {
	files, done, err := in.files()
	if err == nil {
		defer done()
		_, err = fs.Stat(files, r.path)
	}
	if err != nil {
		return &Failure{Check: "exists", Message: fmt.Sprintf("exists %s: %s", r.path, describeFileError(err))}
	}
	return nil
}

// errIsDir reports a rule pointed at a folder where it needs a file.
var errIsDir = errors.New("is a folder, not a file")

// files returns the workspace's files, Files or Dir opened as a
// workspace, and the function that closes what it opened.
func (in Input) files() (fs.FS, func(), error) {
	if in.Files != nil {
		return in.Files, func() {}, nil
	}
	r, err := workspace.Open(in.Dir)
	if err != nil {
		return nil, nil, err
	}
	return r.FS(), func() { r.Close() }, nil
}

// readFile reads the file at path through the workspace, so that neither
// "..", nor a symlink, nor a FIFO can lead a rule outside it or hang it.
func readFile(in Input, path string) ([]byte, error) {
	files, done, err := in.files()
	if err != nil {
		return nil, err
	}
	defer done()
	return readFrom(files, path)
}

// MaxRuleFileBytes is the largest file a rule reads (the file tools'
// default limit): a command can leave a file of any size, a sparse one
// of a terabyte for nothing, and a rule that read it whole would run the
// process out of memory. A larger file fails the rule, named as such.
const MaxRuleFileBytes = 256 << 20

// readFrom reads the regular file at path in files, at most
// MaxRuleFileBytes of it.
func readFrom(files fs.FS, path string) ([]byte, error) {
	if st, err := fs.Stat(files, path); err != nil {
		return nil, err
	} else if st.IsDir() {
		return nil, errIsDir
	}
	return workspace.ReadFileAtMost(files, path, MaxRuleFileBytes)
}

// describeFileError turns a read failure into the words of a message: a
// missing file says it is missing. The workspace's refusals are told
// apart by their sentinels.
func describeFileError(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, errIsDir):
		return errIsDir.Error()
	case errors.Is(err, fs.ErrPermission):
		return "not readable (permission denied)"
	case errors.Is(err, workspace.ErrOutside), errors.Is(err, fs.ErrInvalid):
		return "points outside the workspace"
	case errors.Is(err, workspace.ErrStateDir):
		return "is in nightshift's state folder, which no check reads"
	case errors.Is(err, workspace.ErrTooLarge):
		return "too large to read (" + err.Error() + ")"
	case errors.Is(err, workspace.ErrNotRegular):
		return "not a regular file (a FIFO, socket or device is never read)"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
