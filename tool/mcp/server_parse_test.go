package mcp

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseReadsCommandsAndURLs(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		command []string
		url     string
	}{
		{`fs=npx -y @modelcontextprotocol/server-filesystem .`, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}, ""},
		{`db=./server --name "my db" --path 'a b' x\ y`, []string{"./server", "--name", "my db", "--path", "a b", "x y"}, ""},
		{`gh=https://mcp.example.com/mcp`, nil, "https://mcp.example.com/mcp"},
	} {
		s, err := Parse(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if !slices.Equal(s.Command, tc.command) || s.URL != tc.url {
			t.Errorf("%s: command %q url %q", tc.spec, s.Command, s.URL)
		}
	}
	for _, bad := range []string{"fs", "=npx", "fs=", "a__b=npx", "f s=npx", `fs=npx "open`, strings.Repeat("x", 40) + "=npx"} {
		if _, err := Parse(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("Parse(%q) = %v, want ErrConfig", bad, err)
		}
	}
}

func TestToolNamesAreMappedIntoWhatProvidersAccept(t *testing.T) {
	for server, tools := range map[string][2]string{
		"gh": {"create.issue", "gh__create_issue"},
		"fs": {"read file/ünï", "fs__read_file__n_"},
		"x":  {strings.Repeat("t", 80), "x__" + strings.Repeat("t", 61)},
	} {
		if got := ToolName(server, tools[0]); got != tools[1] {
			t.Errorf("ToolName(%q, %q) = %q, want %q", server, tools[0], got, tools[1])
		}
	}
}
