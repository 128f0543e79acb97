package agent

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/verify"
)

// readTools are the tools that only read: nothing they do bears on a
// claim of the final answer.
var readTools = map[string]bool{"read_file": true, "list_dir": true, ReadResultName: true}

// fileWrites are the file tools that write, with a path in their input.
var fileWrites = map[string]bool{"write_file": true, "edit_file": true}

// commandTool is run_command's name (package tool/command).
const commandTool = "run_command"

// noteRan records, for the claims check, a call that may have changed
// something, with how it ended: a command with its line and exit status,
// a file tool's successful write with its path (even one that found the
// content already there, which changed nothing), any other tool (an MCP
// server's, delegate_task) by name, since it may have run anything. A
// call of a tool the run does not have ran nothing.
func (r *run) noteRan(u llm.Block, result llm.Block) {
	if readTools[u.Name] || r.tool(u.Name) == nil {
		return
	}
	ran := verify.Ran{Tool: u.Name, OK: !result.IsError}
	switch {
	case fileWrites[u.Name]:
		p := inputPath(u)
		if p == "" || result.IsError {
			return
		}
		ran.Path = p
	case u.Name == commandTool:
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(u.Input, &in) != nil || strings.TrimSpace(in.Command) == "" {
			return // it never ran
		}
		ran.Command = in.Command
		ran.Status = lastStatus(result.Text)
		if ran.Status == "" && result.IsError {
			// Refused by the gate, or not run: its first line says why.
			ran.Status, _, _ = strings.Cut(result.Text, "\n")
			if r := []rune(ran.Status); len(r) > 120 {
				ran.Status = string(r[:120])
			}
		}
	}
	r.ran = append(r.ran, ran)
}

// inputPath is the workspace path in a file tool's input, cleaned, or ""
// when it has none that stays inside.
func inputPath(u llm.Block) string {
	var in struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(u.Input, &in) != nil || in.Path == "" || !filepath.IsLocal(in.Path) {
		return ""
	}
	return filepath.ToSlash(filepath.Clean(in.Path))
}

// noteRecorded notes a call of a resumed run whose result was recorded
// before the run stopped: its result stands, so its command counts as
// run, and the file a file tool wrote as changed, though the workspace's
// own list of changes, new with this process, never saw the write.
func (r *run) noteRecorded(u llm.Block, result llm.Block) {
	r.noteRan(u, result)
	if p := inputPath(u); fileWrites[u.Name] && !result.IsError && p != "" {
		r.changed = append(r.changed, p)
	}
}

// lastStatus is the status line run_command ends its result with,
// "[exit status 1]", without its brackets; "" when there is none.
func lastStatus(text string) string {
	text = strings.TrimRight(text, "\n")
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	if strings.HasPrefix(text, "[") && strings.HasSuffix(text, "]") {
		return strings.TrimSuffix(strings.TrimPrefix(text, "["), "]")
	}
	return ""
}
