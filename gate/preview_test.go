package gate

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestDescribe(t *testing.T) {
	files := fstest.MapFS{
		"a.md":      {Data: []byte("alpha\nbeta\n")},
		"docs/b.md": {Data: []byte("x\n")},
	}
	tests := []struct {
		name         string
		tool, input  string
		summary, pre string
	}{
		{
			name: "a command shows its exact command line",
			tool: "run_command", input: `{"command":"go test ./... && rm -rf /tmp/x"}`,
			summary: "run_command: go test ./... && rm -rf /tmp/x",
			pre:     "$ go test ./... && rm -rf /tmp/x\n(run with sh -c in the workspace folder)",
		},
		{
			name: "a multi-line command stays on one audit line, and on one line of its preview, which counts its lines",
			tool: "run_command", input: `{"command":"echo a\necho b"}`,
			summary: `run_command: echo a\necho b`,
			pre:     "$ echo a\\necho b\n(the command has 2 lines, shown on one: each \\n is a line break; run with sh -c in the workspace folder)",
		},
		{
			name: "a write of a new file shows its path, size and content",
			tool: "write_file", input: `{"path":"new.md","content":"hello\n"}`,
			summary: "write_file new.md (6 bytes, new file)",
			pre:     "write_file new.md (6 bytes, new file)\nhello\n",
		},
		{
			name: "an overwrite shows the size of both and the diff",
			tool: "write_file", input: `{"path":"a.md","content":"alpha\ngamma\n"}`,
			summary: "write_file a.md (12 bytes, overwrites a file of 11 bytes)",
			pre:     "write_file a.md (12 bytes, overwrites a file of 11 bytes)\n--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n",
		},
		{
			name: "an edit shows the diff in its file",
			tool: "edit_file", input: `{"path":"./docs/b.md","old":"x","new":"y"}`,
			summary: "edit_file ./docs/b.md (replace 1 bytes with 1 bytes)",
			pre:     "edit_file ./docs/b.md (replace 1 bytes with 1 bytes)\n--- a/./docs/b.md\n+++ b/./docs/b.md\n@@ -1 +1 @@\n-x\n+y\n",
		},
		{
			name: "an edit of text that is not there shows the replacement",
			tool: "edit_file", input: `{"path":"a.md","old":"zeta","new":"eta"}`,
			summary: "edit_file a.md (replace 4 bytes with 3 bytes)",
			pre:     "edit_file a.md (replace 4 bytes with 3 bytes)\n--- old\n+++ new\n@@ -1 +1 @@\n-zeta\n\\ No newline at end of file\n+eta\n\\ No newline at end of file\n",
		},
		{
			name: "a path that leaves the workspace is not read",
			tool: "write_file", input: `{"path":"../etc/passwd","content":"x"}`,
			summary: "write_file ../etc/passwd (1 bytes, new file)",
			pre:     "write_file ../etc/passwd (1 bytes, new file)\nx",
		},
		{
			name: "another tool shows its name and canonical input",
			tool: "deploy", input: `{"z": 1, "a": "prod"}`,
			summary: `deploy {"a":"prod","z":1}`,
			pre:     `deploy {"a":"prod","z":1}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			summary, pre := Describe(files, tt.tool, json.RawMessage(tt.input))
			if diff := cmp.Diff(tt.summary, summary); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.pre, pre); diff != "" {
				t.Errorf("preview (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribeBoundsWhatItShows(t *testing.T) {
	long := strings.Repeat("line\n", 500)
	in, _ := json.Marshal(map[string]string{"path": "big.txt", "content": long})
	_, pre := Describe(nil, "write_file", in)
	if n := strings.Count(pre, "\n"); n > maxPreviewLines+2 {
		t.Errorf("preview has %d lines; want at most about %d", n, maxPreviewLines)
	}
	if !strings.Contains(pre, "(440 more lines)") {
		t.Errorf("preview does not say how much it left out:\n%s", pre[len(pre)-60:])
	}
	cmdIn, _ := json.Marshal(map[string]string{"command": strings.Repeat("é", 300)})
	summary, _ := Describe(nil, "run_command", cmdIn)
	if len(summary) > maxSummary+40 || !strings.Contains(summary, "bytes more)") {
		t.Errorf("summary of %d bytes is not clipped: %q", len(summary), summary)
	}
	if !json.Valid([]byte(`"` + summary + `"`)) {
		t.Error("clipping split a character")
	}
}
