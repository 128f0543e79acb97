package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
)

type auditEntries struct{ got []gate.Entry }

func (a *auditEntries) Record(e gate.Entry) error { a.got = append(a.got, e); return nil }

// decisions lists each audited call as "tool decision by".
func (a *auditEntries) decisions() []string {
	var out []string
	for _, e := range a.got {
		out = append(out, e.Tool+" "+e.Decision+" "+string(e.By))
	}
	return out
}

// Regression (issue 11): a call whose input its schema rejected never ran,
// yet the audit log said the policy allowed it.
func TestACallItsSchemaRejectsIsAuditedAsRejected(t *testing.T) {
	f := setup(t, `
turns:
  - tool_calls:
      - {name: write_file, input: {path: a.txt}}
      - {name: wirte_file, input: {path: a.txt, content: x}}
  - text: done
`, nil)
	audit := &auditEntries{}
	f.cfg.Gate = gate.New(gate.Config{Audit: audit})
	res := agent.Run(context.Background(), f.cfg, "write a.txt")
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	want := []string{"write_file reject schema", "wirte_file reject schema"}
	if diff := cmp.Diff(want, audit.decisions()); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
	if r := audit.got[0].Reason; r == "" {
		t.Error("the rejection has no reason")
	}
}

// failingSnapshots cannot capture the workspace.
type failingSnapshots struct{ after int }

func (s *failingSnapshots) Snapshot(context.Context) error { return errors.New("disk full") }
func (s *failingSnapshots) AfterSnapshot() error           { s.after++; return nil }

type cmdTool struct{ ran bool }

func (c *cmdTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "run_command", Description: "a command", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (c *cmdTool) Class() tool.Class { return tool.Danger }
func (c *cmdTool) Run(context.Context, json.RawMessage) tool.Result {
	c.ran = true
	return tool.OK("ran")
}

// Regression (issue 11): a command refused because the workspace could
// not be captured was audited as allowed.
func TestAFailedCaptureIsAuditedAsRefused(t *testing.T) {
	f := setup(t, `
turns:
  - tool_calls:
      - {name: run_command, input: {command: make}}
  - text: done
`, nil)
	cmd := &cmdTool{}
	tools, err := tool.NewSet(cmd)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Tools = tools
	snaps := &failingSnapshots{}
	f.cfg.Snapshots = snaps
	audit := &auditEntries{}
	policy, err := gate.ParsePolicy("danger=allow")
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Gate = gate.New(gate.Config{Audit: audit, Policy: policy})
	agent.Run(context.Background(), f.cfg, "make")
	if cmd.ran || snaps.after != 0 {
		t.Errorf("ran %v, AfterSnapshot %d times; want neither", cmd.ran, snaps.after)
	}
	if diff := cmp.Diff([]string{"run_command refuse run"}, audit.decisions()); diff != "" {
		t.Errorf("audit (-want +got):\n%s", diff)
	}
	if want := "the workspace could not be captured for rollback: disk full"; audit.got[0].Reason != want {
		t.Errorf("reason %q, want %q", audit.got[0].Reason, want)
	}
	if diff := cmp.Diff([]string{"[tool · run_command not run: the workspace could not be captured for rollback: disk full]"}, f.lines("tool")); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
