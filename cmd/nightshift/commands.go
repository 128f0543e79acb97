package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/statedir"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool/command"
	"github.com/nightshift-dev/nightshift/tool/fs"
)

// addCommandFlags binds the sandbox group's flags (how run_command and
// the cmd: checks run: in which sandbox, with which variables, for how
// long) to their fields of the run spec.
func addCommandFlags(cmd *cobra.Command, c *runspec.Commands) {
	fl := cmd.Flags()
	fl.StringVar(&c.Sandbox, "sandbox", "auto", doc("sandbox"))
	fl.BoolVar(&c.SandboxNet, "sandbox-net", false, doc("sandbox-net"))
	fl.StringArrayVar((*[]string)(&c.Env), "env", nil, doc("env"))
	fl.DurationVar(durationOf(&c.CommandTimeout), "command-timeout", command.DefaultTimeout, doc("command-timeout"))
	fl.StringVar(&c.MaxFileSize, "max-file-size", fs.FormatSize(fs.DefaultMaxFileSize), doc("max-file-size"))
}

// maxFileSize returns the spec's limit of the file tools, in bytes; 0 is
// the default.
func maxFileSize(spec *taskfile.Spec) (int64, error) {
	if spec.MaxFileSize == "" {
		return 0, nil
	}
	n, err := fs.ParseSize(spec.MaxFileSize)
	if err != nil {
		return 0, usagef("--max-file-size (task file: max_file_size): %v", err)
	}
	return n, nil
}

// sandboxConfig is the sandbox a task's commands run in: its mode,
// network and variables (the run adds the workspace and its state
// folder). A mode that is not one is a usage error.
func sandboxConfig(spec *taskfile.Spec) (sandbox.Config, error) {
	sbc, err := spec.SandboxConfig()
	if err != nil {
		return sandbox.Config{}, usagef("--%v", err)
	}
	return sbc, nil
}

// checkSandbox makes sbc's sandbox to see that it can be had (bubblewrap
// for --sandbox bwrap, no credential in Env) and what it warns, before a
// batch or a night starts its work. Its probe of bubblewrap keeps its
// success in the state directory stateBase (statedir.Base), as a run's
// does (lifecycle): without it, every batch and night paid for the probe
// at its start, and this process's later runs took that probe's result
// without keeping it for the next process.
func checkSandbox(sbc sandbox.Config, stateBase string) (*sandbox.Sandbox, error) {
	if sbc.ProbeCache == "" {
		if b, err := statedir.Base(stateBase); err == nil {
			sbc.ProbeCache = sandbox.ProbeCacheFile(b)
		}
	}
	return newSandbox(sbc)
}

// newSandbox is sandbox.New; tests see the configs checkSandbox gives.
var newSandbox = sandbox.New

// commandTimeout returns the spec's command timeout; 0 is the default.
func commandTimeout(spec *taskfile.Spec) (time.Duration, error) {
	d, err := spec.CommandDuration()
	if err != nil {
		// The flag and the task file's key both set it: name both (it
		// named only the key, to a person who gave the flag).
		return 0, usagef("--command-timeout (task file: command_timeout) is %s: want a positive duration such as 5m", spec.CommandTimeout.D())
	}
	return d, nil
}

// judgeInfo names the judge and where its calls go; empty without one.
type judgeInfo struct{ name, target string }

// judgeOf describes the judge built (nil: none).
func judgeOf(b *built) judgeInfo {
	if b == nil {
		return judgeInfo{}
	}
	return judgeInfo{b.name, b.target()}
}

// fields are what a run's start event says about the judge: where the
// task, the answer and the changed files are sent.
func (j judgeInfo) fields() []agent.StartField {
	if j.target == "" {
		return nil
	}
	return []agent.StartField{{Key: "judge", Value: j.name}, {Key: "judge_endpoint", Value: j.target}}
}

// The process's redactor travels in the command's context: every command
// that writes (events, records, the audit log, reports) wraps its writers
// with it.
type redactorKey struct{}

func withRedactor(ctx context.Context, r *redact.Redactor) context.Context {
	return context.WithValue(ctx, redactorKey{}, r)
}

// redactorOf returns the context's redactor; one from the environment
// when there is none (a test calling a command directly).
func redactorOf(ctx context.Context) *redact.Redactor {
	if r, ok := ctx.Value(redactorKey{}).(*redact.Redactor); ok {
		return r
	}
	return redact.FromEnv(nil)
}

// learnFiles teaches the context's redactor the passwords of the URLs in
// the configuration files at path, a file or the files of a folder (a
// pipeline's or a task file's base_url, an MCP server's URL): they are
// redacted from everything the command writes, as those of its flags
// are. A file that cannot be read teaches nothing; its loader says why.
func learnFiles(ctx context.Context, path string) {
	paths := []string{path}
	if ents, err := os.ReadDir(path); err == nil {
		paths = paths[:0]
		for _, e := range ents {
			if e.Type().IsRegular() {
				paths = append(paths, filepath.Join(path, e.Name()))
			}
		}
	}
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			redactorOf(ctx).Learn(string(data))
		}
	}
}

// warnf prints one warning line.
func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "nightshift: warning: "+format+"\n", args...)
}
