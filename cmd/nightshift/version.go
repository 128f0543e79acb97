package main

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/ledger"
)

// newVersionCmd is `nightshift version`: which build this is, from the
// build information the Go toolchain stamps into every binary.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version, the source revision and the Go version of this build",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(dataOut(cmd), buildVersion())
			return nil
		},
	}
}

// buildVersion is this binary's version line.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	line := versionLine(info)
	if !ledger.Postgres {
		line += ", without the PostgreSQL ledger (-tags nopostgres; " + postgresBuild + " has it)"
	}
	return line
}

// unknownRevision is what the version line says when the build recorded
// no VCS revision: built with -buildvcs=false (or GOFLAGS saying so), by
// go run or go test, or from a module without VCS information (a
// download from the module proxy, a source tarball).
const unknownRevision = "revision unknown (built without VCS information)"

// versionLine renders the build information: the main module's version
// ("(devel)" for a build from a checkout), then the VCS revision, its time
// and whether the tree had changes, when the build recorded them, then the
// Go version. Every field says what it is; what the build did not record
// is named as unknown, never left out. A binary without build
// information (nil) still names the Go version it runs on.
func versionLine(info *debug.BuildInfo) string {
	if info == nil {
		return "nightshift version unknown, " + unknownRevision + ", " + runtime.Version()
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	line := "nightshift " + cmp.Or(info.Main.Version, "(devel)")
	if rev := settings["vcs.revision"]; rev != "" {
		line += ", revision " + rev
		if t := settings["vcs.time"]; t != "" {
			line += " " + t
		}
		if settings["vcs.modified"] == "true" {
			line += " (modified)"
		}
	} else {
		line += ", " + unknownRevision
	}
	return line + ", " + cmp.Or(info.GoVersion, runtime.Version())
}
