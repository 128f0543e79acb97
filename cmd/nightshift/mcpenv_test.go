package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/nightshift-dev/nightshift/taskfile"
)

// A paused run is resumed with the variables --mcp-env gave its servers:
// without them a server that needs its token would not start again.
func TestAResumedRunKeepsItsMCPEnv(t *testing.T) {
	f := &runFlags{modelFlags: modelFlags{provider: "scripted"}, eco: ecoFlags{mcp: []string{"gh=github-mcp-server stdio"}, mcpEnv: []string{"gh=GITHUB_TOKEN"}}}
	raw, err := settingsOf(f, &taskfile.Spec{}, t.TempDir(), "scripted")
	if err != nil {
		t.Fatal(err)
	}
	var s runSettings
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if got := s.flags(t.TempDir()).eco.mcpEnv; !slices.Equal(got, []string{"gh=GITHUB_TOKEN"}) {
		t.Errorf("the resumed run's --mcp-env = %q, want gh=GITHUB_TOKEN", got)
	}
}
