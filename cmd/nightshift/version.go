package main

import (
	"cmp"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// newVersionCmd is `nightshift version`: which build this is, from the
// build information the Go toolchain stamps into every binary.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version and the source revision of this build",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, ok := debug.ReadBuildInfo()
			if !ok {
				return fmt.Errorf("no build information in this binary")
			}
			fmt.Fprintln(cmd.OutOrStdout(), versionLine(info))
			return nil
		},
	}
}

// versionLine renders the build information: the main module's version
// ("(devel)" for a build from a checkout), then the VCS revision, its time
// and whether the tree had changes, when the build recorded them (go build
// in a git checkout does; go run and go test do not), then the Go version.
func versionLine(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	line := "nightshift " + cmp.Or(info.Main.Version, "(devel)")
	if rev := settings["vcs.revision"]; rev != "" {
		line += " " + rev
		if t := settings["vcs.time"]; t != "" {
			line += " " + t
		}
		if settings["vcs.modified"] == "true" {
			line += " (modified)"
		}
	} else {
		line += " (no VCS revision recorded: build with go build or go install in a git checkout)"
	}
	return line + " " + info.GoVersion
}
