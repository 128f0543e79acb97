package main

import (
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
			"nightshift v0.3.0 5de37a6a 2026-11-30T17:00:00Z go1.26.8"},
		{"a checkout with changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "5de37a6a"}, {Key: "vcs.modified", Value: "true"}}},
			"nightshift (devel) 5de37a6a (modified) go1.26.8"},
		{"go run, which records no revision, says so", debug.BuildInfo{GoVersion: "go1.26.8"},
			"nightshift (devel) (no VCS revision recorded: build with go build or go install in a git checkout) go1.26.8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(&tt.info); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	t.Run("the command prints this binary's line", func(t *testing.T) {
		res := runCLI(t, "version")
		if res.code != 0 || !strings.HasPrefix(res.stdout, "nightshift ") {
			t.Errorf("exit %d, stdout %q", res.code, res.stdout)
		}
	})
}
