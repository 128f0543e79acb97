package fs

import (
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"syscall"

	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/workspace"
)

// DefaultMaxFileSize is the largest file the file tools read, write or
// edit when Config.MaxFileSize is zero: 256 MiB.
const DefaultMaxFileSize = 256 << 20

// Config configures the file tools.
type Config struct {
	// MaxFileSize is the largest file, in bytes, that read_file,
	// write_file and edit_file touch, and the largest content write_file
	// and edit_file write: past it they answer with an error result that
	// says so, and never read the file into memory. Zero means
	// DefaultMaxFileSize (256 MiB); the --max-file-size flag and the
	// max_file_size key set it.
	MaxFileSize int64
}

func (c Config) maxFileSize() int64 {
	if c.MaxFileSize > 0 {
		return c.MaxFileSize
	}
	return DefaultMaxFileSize
}

// Tools returns the four file tools over r, readers first, with the
// default Config.
func Tools(r *workspace.Root) []tool.Tool { return ToolsWith(r, Config{}) }

// ToolsWith returns the four file tools over r, configured by cfg.
func ToolsWith(r *workspace.Root, cfg Config) []tool.Tool {
	read, write, edit := NewReadFile(r), NewWriteFile(r), NewEditFile(r)
	read.MaxFileSize, write.MaxFileSize, edit.MaxFileSize = cfg.MaxFileSize, cfg.MaxFileSize, cfg.MaxFileSize
	return []tool.Tool{read, NewListDir(r), write, edit}
}

// tooBig is the error result for a file (or a content) past the limit.
func tooBig(name, what string, size, limit int64) tool.Result {
	return tool.Error(fmt.Sprintf("%s: %s is %d bytes, past the file tools' limit of %d bytes (--max-file-size, max_file_size); %s never reads or writes it whole: use run_command to work on it (head, grep, sed), or ask for a higher limit",
		name, what, size, limit, name))
}

// checkSize returns an error result when the file at rel is larger than
// limit; none when it is not, or cannot be stat'ed (the tool's own
// access then says why).
func checkSize(r *workspace.Root, name, rel string, limit int64) (tool.Result, bool) {
	fi, err := r.Stat(rel)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= limit {
		return tool.Result{}, false
	}
	return tooBig(name, rel, fi.Size(), limit), true
}

// pathProperty is the schema of the path input every tool shares.
const pathProperty = `"path": {
	"type": "string",
	"description": "Path relative to the workspace root, with forward slashes, for example \"docs/notes.md\". Absolute paths, \"..\" that leaves the workspace and the .nightshift folder are refused."
}`

// pathOnlySchema is the input schema of the tools that take a path alone
// (read_file, list_dir).
const pathOnlySchema = `{
	"type": "object",
	"properties": {` + pathProperty + `},
	"required": ["path"],
	"additionalProperties": false
}`

// decode reads a tool's input. The Set has already checked it against
// the schema; this catches a direct Run with bad input.
func decode(name string, input json.RawMessage, v any) (tool.Result, bool) {
	if err := json.Unmarshal(input, v); err != nil {
		return tool.Error(fmt.Sprintf("%s: the input is not valid: %v", name, err)), false
	}
	return tool.Result{}, true
}

// toolError is a failure whose message is already written for the model.
type toolError string

func (e toolError) Error() string { return string(e) }

// failure turns an error about path into the result the model reads.
// noun names what path was meant to be ("file" or "directory").
func failure(path, noun string, err error) tool.Result {
	var (
		pe *workspace.PathError
		ge *workspace.GuardError
		te toolError
	)
	switch {
	case errors.As(err, &pe):
		return tool.Error(pe.Error())
	case errors.As(err, &ge):
		return tool.Error(ge.Error())
	case errors.As(err, &te):
		return tool.Error(string(te))
	case errors.Is(err, iofs.ErrNotExist):
		return tool.Error(fmt.Sprintf("no such %s: %s", noun, path))
	case errors.Is(err, iofs.ErrPermission):
		return tool.Error("permission denied: " + path)
	case errors.Is(err, workspace.ErrTooBig):
		return tool.Error(err.Error() + " (the file tools' limit: --max-file-size); use run_command to work on it")
	case errors.Is(err, workspace.ErrNotRegular):
		return tool.Error(fmt.Sprintf("%s is not a regular file; the file tools read and write regular files only", path))
	case errors.Is(err, syscall.EISDIR):
		return tool.Error(isDir(path))
	case errors.Is(err, syscall.ENOTDIR):
		return tool.Error(fmt.Sprintf("no such %s: %s (a part of the path is a file, not a directory)", noun, path))
	case errors.Is(err, syscall.ENOSPC):
		return tool.Error(fmt.Sprintf("%s: no space left on the device", path))
	}
	res := tool.Error(fmt.Sprintf("%s: %v", path, err))
	// A busy or interrupted file system may answer on the next try.
	res.Transient = errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EBUSY) ||
		errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.ETIMEDOUT) ||
		errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
	return res
}

func isDir(path string) string {
	return fmt.Sprintf("%s is a directory, not a file; use list_dir to see what it holds", path)
}
