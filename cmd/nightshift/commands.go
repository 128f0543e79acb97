package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool/command"
)

// commandFlags say how run_command and the cmd: checks run: in which
// sandbox, with which variables, for how long.
type commandFlags struct {
	sandbox        string
	sandboxNet     bool
	env            []string
	commandTimeout time.Duration
}

func addCommandFlags(cmd *cobra.Command, f *commandFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.sandbox, "sandbox", "auto", "how commands are confined: auto (bwrap where it works, else none), bwrap or none (docs/side-effects.md)")
	fl.BoolVar(&f.sandboxNet, "sandbox-net", false, "let sandboxed commands reach the network")
	fl.StringArrayVar(&f.env, "env", nil, "pass the variable NAME to commands, repeatable (never a credential)")
	fl.DurationVar(&f.commandTimeout, "command-timeout", command.DefaultTimeout, "how long one command may run before it and everything it started are killed")
}

// mergeCommands puts the flags into spec: a flag given on the command line
// beats the task file, --env adds to the file's list.
func mergeCommands(changed func(string) bool, f *commandFlags, spec *taskfile.Spec) {
	if changed("sandbox") || spec.Sandbox == "" {
		spec.Sandbox = f.sandbox
	}
	if changed("sandbox-net") {
		spec.SandboxNet = f.sandboxNet
	}
	spec.Env = append(slices.Clone(spec.Env), f.env...)
	if changed("command-timeout") || spec.CommandTimeout == "" {
		spec.CommandTimeout = f.commandTimeout.String()
	}
}

// newSandbox builds the sandbox a task's commands run in, in the
// workspace dir, hiding its state folder. A sandbox that cannot be had
// (--sandbox bwrap without a working bubblewrap, --env naming a
// credential) is a usage error: nothing has run.
func newSandbox(spec *taskfile.Spec, dir string, hide ...string) (*sandbox.Sandbox, error) {
	sb, err := sandbox.New(sandbox.Config{
		Mode: sandbox.Mode(spec.Sandbox), Dir: dir, Net: spec.SandboxNet, Env: spec.Env, Hide: hide,
	})
	if err != nil {
		return nil, usageError(err)
	}
	return sb, nil
}

// commandTimeout returns the spec's command timeout; 0 is the default.
func commandTimeout(spec *taskfile.Spec) (time.Duration, error) {
	d, err := spec.Timeout()
	if err != nil {
		return 0, usageError(err)
	}
	return d, nil
}

// startFields are what a run's start event says beyond the task and the
// model: how commands are confined and where the judge's calls go.
func startFields(sb *sandbox.Sandbox, judgeName, judgeTarget string) []agent.StartField {
	var out []agent.StartField
	if sb != nil {
		out = append(out, agent.StartField{Key: "sandbox", Value: sb.String()})
	}
	if judgeTarget != "" {
		out = append(out, agent.StartField{Key: "judge", Value: judgeName}, agent.StartField{Key: "judge_endpoint", Value: judgeTarget})
	}
	return out
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

// redactRecord replaces the secrets in what a run record holds besides
// its events (which passed through the redactor as they were emitted).
func redactRecord(r *redact.Redactor, rec *agent.Record) {
	rec.Task, rec.Reason, rec.Error, rec.Answer, rec.Patch =
		r.String(rec.Task), r.String(rec.Reason), r.String(rec.Error), r.String(rec.Answer), r.String(rec.Patch)
	for i := range rec.FailedChecks {
		rec.FailedChecks[i] = r.String(rec.FailedChecks[i])
	}
	for i := range rec.RolledBack {
		rec.RolledBack[i] = r.String(rec.RolledBack[i])
	}
	for i := range rec.Conflicts {
		rec.Conflicts[i] = r.String(rec.Conflicts[i])
	}
}

// warnf prints one warning line.
func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "nightshift: warning: "+format+"\n", args...)
}
