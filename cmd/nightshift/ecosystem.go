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
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
	"github.com/nightshift-dev/nightshift/tool/mcp"
	"github.com/nightshift-dev/nightshift/tracing"
)

// addEcoFlags binds the ecosystem's flags (issue 16: MCP servers, the
// subagent, memory and traces; run and batch have them) to their fields
// of the run spec.
func addEcoFlags(cmd *cobra.Command, e *runspec.Ecosystem) {
	fl := cmd.Flags()
	fl.StringArrayVar(&e.MCPFlags, "mcp", nil, doc("mcp"))
	fl.StringArrayVar(&e.MCPClass, "mcp-class", nil, doc("mcp-class"))
	fl.StringArrayVar(&e.MCPEnv, "mcp-env", nil, doc("mcp-env"))
	fl.StringArrayVar(&e.MCPTrust, "mcp-trust", nil, doc("mcp-trust"))
	fl.BoolVar(&e.Subagents, "subagents", false, doc("subagents"))
	fl.IntVar(&e.SubagentSteps, "subagent-steps", lifecycle.DefaultSubagentSteps, doc("subagent-steps"))
	fl.BoolVar(&e.Memory, "memory", false, doc("memory"))
	addOtelFlags(cmd, e)
}

// addOtelFlags adds the trace flags alone (the night has no others of
// the ecosystem's: its pipeline says them).
func addOtelFlags(cmd *cobra.Command, e *runspec.Ecosystem) {
	fl := cmd.Flags()
	fl.BoolVar(&e.Otel, "otel", false, doc("otel"))
	fl.StringVar(&e.OtelFile, "otel-file", "", doc("otel-file"))
	fl.BoolVar(&e.OtelContent, "otel-content", false, doc("otel-content"))
}

// applyEco puts the spec's ecosystem into cfg: the servers of the task
// file first, then --mcp's, and --mcp-class, --mcp-env and --mcp-trust over both, the
// sub-agents and memory. Every mistake is a usage error, found before
// anything runs.
func applyEco(cfg *lifecycle.Config, spec *taskfile.Spec) error {
	servers, err := spec.MCPServers()
	if err != nil {
		return usageError(err)
	}
	e := &spec.Ecosystem
	for _, s := range e.MCPFlags {
		srv, err := mcp.Parse(s)
		if err != nil {
			return usageError(err)
		}
		servers = append(servers, srv)
	}
	for _, rule := range e.MCPClass {
		if err := mcp.SetClass(servers, rule); err != nil {
			return usageError(err)
		}
	}
	for _, rule := range e.MCPEnv {
		if err := mcp.AddEnv(servers, rule); err != nil {
			return usageError(err)
		}
	}
	for _, name := range e.MCPTrust {
		if err := mcp.TrustWorkspace(servers, name); err != nil {
			return usageError(err)
		}
	}
	if e.SubagentSteps < 0 {
		return usagef("--subagent-steps must not be negative")
	}
	cfg.MCP = servers
	return nil
}

// startTrace starts the exporters the spec and the OTEL_* variables ask
// for; the returned stop flushes them, and must run before the process
// ends. An exporter nightshift does not have is a usage error.
func startTrace(ctx context.Context, e *runspec.Ecosystem, stderr io.Writer) (*tracing.Tracer, func(), error) {
	tr, stop, err := tracing.Start(ctx, tracing.Setup{
		On: e.Otel, File: e.OtelFile, Content: e.OtelContent, Version: moduleVersion(),
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
