package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool/mcp"
	"github.com/nightshift-dev/nightshift/tracing"
)

// ecoFlags are the flags of the ecosystem (issue 16): MCP servers, the
// subagent, memory and traces. run and batch have them.
type ecoFlags struct {
	mcp           []string
	mcpClass      []string
	mcpEnv        []string
	mcpTrust      []string
	subagents     bool
	subagentSteps int
	memory        bool
	otel          bool
	otelFile      string
	otelContent   bool
}

func addEcoFlags(cmd *cobra.Command, f *ecoFlags) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.mcp, "mcp", nil, doc("mcp"))
	fl.StringArrayVar(&f.mcpClass, "mcp-class", nil, doc("mcp-class"))
	fl.StringArrayVar(&f.mcpEnv, "mcp-env", nil, doc("mcp-env"))
	fl.StringArrayVar(&f.mcpTrust, "mcp-trust", nil, doc("mcp-trust"))
	fl.BoolVar(&f.subagents, "subagents", false, doc("subagents"))
	fl.IntVar(&f.subagentSteps, "subagent-steps", lifecycle.DefaultSubagentSteps, doc("subagent-steps"))
	fl.BoolVar(&f.memory, "memory", false, doc("memory"))
	addOtelFlags(cmd, f)
}

// addOtelFlags adds the trace flags alone (the night has no others of
// the ecosystem's: its pipeline says them).
func addOtelFlags(cmd *cobra.Command, f *ecoFlags) {
	fl := cmd.Flags()
	fl.BoolVar(&f.otel, "otel", false, doc("otel"))
	fl.StringVar(&f.otelFile, "otel-file", "", doc("otel-file"))
	fl.BoolVar(&f.otelContent, "otel-content", false, doc("otel-content"))
}

// apply puts the flags and the task's mcp: section into cfg: the
// servers of the task file first, then --mcp's, and --mcp-class and
// --mcp-env and --mcp-trust over both. Every mistake is a usage error, found before anything runs.
func (f *ecoFlags) apply(cfg *lifecycle.Config, spec *taskfile.Spec) error {
	servers, err := spec.MCPServers()
	if err != nil {
		return usageError(err)
	}
	for _, s := range f.mcp {
		srv, err := mcp.Parse(s)
		if err != nil {
			return usageError(err)
		}
		servers = append(servers, srv)
	}
	for _, rule := range f.mcpClass {
		if err := mcp.SetClass(servers, rule); err != nil {
			return usageError(err)
		}
	}
	for _, rule := range f.mcpEnv {
		if err := mcp.AddEnv(servers, rule); err != nil {
			return usageError(err)
		}
	}
	for _, name := range f.mcpTrust {
		if err := mcp.TrustWorkspace(servers, name); err != nil {
			return usageError(err)
		}
	}
	if f.subagentSteps < 0 {
		return usagef("--subagent-steps must not be negative")
	}
	cfg.MCP = servers
	cfg.Subagents, cfg.SubagentSteps = f.subagents, f.subagentSteps
	if f.memory {
		cfg.Memory = &lifecycle.Memory{}
	}
	return nil
}

// startTrace starts the exporters the flags and the OTEL_* variables ask
// for; the returned stop flushes them, and must run before the process
// ends. An exporter nightshift does not have is a usage error.
func (f *ecoFlags) startTrace(ctx context.Context, stderr io.Writer) (*tracing.Tracer, func(), error) {
	tr, stop, err := tracing.Start(ctx, tracing.Setup{
		On: f.otel, File: f.otelFile, Content: f.otelContent, Version: moduleVersion(),
		Errors: onceErrors(stderr),
	})
	if err != nil {
		return nil, func() {}, usageError(err)
	}
	return tr, func() {
		// A collector that does not answer must not hold the exit long.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := stop(ctx); err != nil {
			fmt.Fprintf(stderr, "nightshift: traces: %v\n", err)
		}
	}, nil
}

// onceErrors reports an exporter's first failure on stderr, and no more:
// a collector that is down would otherwise fill the terminal.
func onceErrors(w io.Writer) func(error) {
	said := false
	return func(err error) {
		if !said {
			said = true
			fmt.Fprintf(w, "nightshift: traces: %v (further trace errors are not shown)\n", err)
		}
	}
}

// ecoNotStarted maps an MCP server that did not start to a usage error.
func ecoNotStarted(err error) (error, bool) {
	if errors.Is(err, mcp.ErrConfig) {
		return usageError(err), true
	}
	return err, false
}

// moduleVersion is the main module's version, for the traces' resource.
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
