package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionNamesTheModuleVersionAndRevision(t *testing.T) {
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"a release from the module proxy", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "5de37a6a"}, {Key: "vcs.time", Value: "2026-11-30T17:00:00Z"}}},
			"nightshift v0.3.0, revision 5de37a6a 2026-11-30T17:00:00Z, go1.26.8"},
		{"a checkout with changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "5de37a6a"}, {Key: "vcs.modified", Value: "true"}}},
			"nightshift (devel), revision 5de37a6a (modified), go1.26.8"},
		{"go run, which records no revision, says so", debug.BuildInfo{GoVersion: "go1.26.8"},
			"nightshift (devel), revision unknown (built without VCS information), go1.26.8"},
		{"a -buildvcs=false build of a release says the revision is unknown", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"},
			Settings: []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}, {Key: "vcs", Value: ""}}},
			"nightshift v0.3.0, revision unknown (built without VCS information), go1.26.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(&tt.info); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	t.Run("a binary without build information still names its Go version", func(t *testing.T) {
		got := versionLine(nil)
		if !strings.Contains(got, "revision unknown (built without VCS information)") || !strings.Contains(got, runtime.Version()) {
			t.Errorf("got %q", got)
		}
	})
	t.Run("the command prints this binary's line", func(t *testing.T) {
		res := runCLI(t, "version")
		if res.code != 0 || !strings.HasPrefix(res.stdout, "nightshift ") || !strings.Contains(res.stdout, ", revision ") {
			t.Errorf("exit %d, stdout %q", res.code, res.stdout)
		}
	})
	t.Run("--version prints the same line", func(t *testing.T) {
		res := runCLI(t, "--version")
		if res.code != 0 || res.stdout != runCLI(t, "version").stdout {
			t.Errorf("exit %d, stdout %q", res.code, res.stdout)
		}
	})
}
