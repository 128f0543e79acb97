package main

import (
	"slices"
	"testing"

	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// A paused run is resumed with the variables --mcp-env gave its servers:
// without them a server that needs its token would not start again.
func TestAResumedRunKeepsItsMCPEnv(t *testing.T) {
	spec := &taskfile.Spec{}
	spec.Provider, spec.MCPFlags, spec.MCPEnv = "scripted", []string{"gh=github-mcp-server stdio"}, []string{"gh=GITHUB_TOKEN"}
	raw, err := settingsOf(&runFlags{}, spec, t.TempDir(), "scripted")
	if err != nil {
		t.Fatal(err)
	}
	rec := recordedForm(spec, "scripted", "scripted") // the spec the checkpoint keeps
	_, got, err := recordedConfig(&lifecycle.Checkpoint{Settings: raw, Spec: &rec}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := got.MCPEnv; !slices.Equal(got, []string{"gh=GITHUB_TOKEN"}) {
		t.Errorf("the resumed run's --mcp-env = %q, want gh=GITHUB_TOKEN", got)
	}
}
