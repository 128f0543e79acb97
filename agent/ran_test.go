package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/verify"
)

// seenClaims is a claims check that finds nothing and keeps what it was
// given.
type seenClaims struct {
	mu  sync.Mutex
	ins []verify.Input
	out []verify.Claim
}

func (s *seenClaims) Claims(_ context.Context, in verify.Input) []verify.Claim {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ins = append(s.ins, in)
	return s.out
}

type cmdIn struct {
	Command string `json:"command"`
}

// withCommands gives f a run_command that passes "go test" and fails
// anything else, and an opaque MCP-like tool.
func withCommands(t *testing.T, f *fixture) {
	t.Helper()
	run := tool.Func("run_command", "run a command", tool.Danger, func(_ context.Context, in cmdIn) (string, error) {
		if strings.HasPrefix(in.Command, "go test") {
			return "ok\n[exit status 0]", nil
		}
		return "", errors.New("FAIL\n[exit status 1]")
	})
	ci := tool.Func("mcp_ci", "run the CI", tool.Read, func(context.Context, struct{}) (string, error) { return "green", nil })
	tools, err := tool.NewSet(append(fs.Tools(f.cfg.Root), run, ci)...)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Tools = tools
}

func TestTheClaimsCheckSeesTheRunsCalls(t *testing.T) {
	f := setup(t, `
turns:
  - tool_calls:
      - {name: write_file, input: {path: out.txt, content: "same\n"}}
      - {name: read_file, input: {path: out.txt}}
      - {name: run_command, input: {command: "go vet ./..."}}
      - {name: run_command, input: {command: "go test ./..."}}
      - {name: mcp_ci, input: {}}
      - {name: search_file, input: {}}
  - text: Wrote out.txt; all tests pass.
`, map[string]string{"out.txt": "same\n"})
	withCommands(t, f)
	sc := &seenClaims{}
	f.cfg.Verifier = &verify.Verifier{Claims: sc}
	res := agent.Run(context.Background(), f.cfg, "write out.txt and test it")
	if res.Outcome != agent.Done || len(sc.ins) != 1 {
		t.Fatalf("outcome %s (%s), %d claims checks", res.Outcome, res.Reason, len(sc.ins))
	}
	// The write found its content there already: out.txt is not among the
	// changes, but the write is among the calls. Reads and a tool the run
	// does not have are not.
	want := []verify.Ran{
		{Tool: "write_file", Path: "out.txt", OK: true},
		{Tool: "run_command", Command: "go vet ./...", Status: "exit status 1"},
		{Tool: "run_command", Command: "go test ./...", OK: true, Status: "exit status 0"},
		{Tool: "mcp_ci", OK: true},
	}
	if diff := cmp.Diff(want, sc.ins[0].Ran); diff != "" {
		t.Errorf("Ran (-want +got):\n%s", diff)
	}
	if len(sc.ins[0].Changed) != 0 {
		t.Errorf("Changed = %v: the write changed nothing", sc.ins[0].Changed)
	}
}

func TestARunWithoutCallsGivesAnEmptyList(t *testing.T) {
	f := setup(t, "turns:\n  - text: nothing to do\n", nil)
	sc := &seenClaims{}
	f.cfg.Verifier = &verify.Verifier{Claims: sc}
	agent.Run(context.Background(), f.cfg, "nothing")
	if len(sc.ins) != 1 || sc.ins[0].Ran == nil {
		t.Errorf("Ran = %#v: a run's calls are known, even when there were none", sc.ins)
	}
}

func TestAResumedRunKeepsItsCalls(t *testing.T) {
	f := setup(t, `
turns:
  - tool_calls:
      - {id: w1, name: write_file, input: {path: a.txt, content: "a"}}
  - text: done
`, map[string]string{"a.txt": "a"})
	withCommands(t, f)
	sc := &seenClaims{}
	f.cfg.Verifier = &verify.Verifier{Claims: sc}
	sv := &saver{}
	f.cfg.Checkpoint = sv
	before := verify.Ran{Tool: "run_command", Command: "go test ./...", OK: true, Status: "exit status 0"}
	reply := llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse("w1", "write_file", []byte(`{"path":"a.txt","content":"a"}`))}}
	// The run stopped after the write's result was recorded, before the
	// step was saved: the write stands, and counts as a change.
	f.cfg.Resume = &agent.State{
		Messages: []llm.Message{llm.UserText("write it"), reply}, Steps: 1,
		Ran:     []verify.Ran{before},
		Pending: &agent.Pending{Results: []llm.Block{llm.ToolResult("w1", "wrote a.txt", false)}},
	}
	res := agent.Run(context.Background(), f.cfg, "write it")
	if res.Outcome != agent.Done || len(sc.ins) != 1 {
		t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	want := []verify.Ran{before, {Tool: "write_file", Path: "a.txt", OK: true}}
	if diff := cmp.Diff(want, sc.ins[0].Ran); diff != "" {
		t.Errorf("Ran (-want +got):\n%s", diff)
	}
	if !cmp.Equal(sc.ins[0].Changed, []string{"a.txt"}) {
		t.Errorf("Changed = %v, want the recorded write's file", sc.ins[0].Changed)
	}
	last := sv.states[len(sv.states)-1]
	if diff := cmp.Diff(want, last.Ran); diff != "" {
		t.Errorf("saved Ran (-want +got):\n%s", diff)
	}
}

func TestTheVerifyEventCarriesTheClaims(t *testing.T) {
	f := setup(t, `
loop: true
turns:
  - text: "post.md has 3,847 characters."
`, nil)
	f.cfg.Spec.MaxVerifyRounds = -1 // none: the first FAIL ends it
	f.cfg.Verifier = &verify.Verifier{Claims: &seenClaims{out: []verify.Claim{{
		Kind: "chars", Text: "post.md has 3,847 characters", Start: 0, End: 28, Path: "post.md", Said: "3,847 characters",
		Measured: "3,341 characters", Verdict: verify.ClaimFalse,
		Feedback: "claims: you said post.md has 3,847 characters; it has 3,341", Fact: "claims: post.md has 3,341 characters, not 3,847",
	}}}}
	res := agent.Run(context.Background(), f.cfg, "write post.md")
	if res.Outcome != agent.Unverified || !cmp.Equal(res.FailedChecks, []string{"claims"}) {
		t.Fatalf("outcome %s, failed %v", res.Outcome, res.FailedChecks)
	}
	if got := f.lines("verify"); !cmp.Equal(got, []string{"[verify · FAIL: claims: post.md has 3,341 characters, not 3,847]"}) {
		t.Errorf("verify lines %q", got)
	}
	var data map[string]any
	for _, e := range f.events.Events() {
		if e.Type == "verify" {
			data = e.Data
		}
	}
	claims, _ := data["claims"].([]any)
	if data["reason"] != "claims: you said post.md has 3,847 characters; it has 3,341" || len(claims) != 1 {
		t.Fatalf("verify data %v", data)
	}
	want := map[string]any{"kind": "chars", "text": "post.md has 3,847 characters", "span": []any{0, 28}, "path": "post.md",
		"said": "3,847 characters", "measured": "3,341 characters", "verdict": "false", "note": "claims: post.md has 3,341 characters, not 3,847"}
	if diff := cmp.Diff(want, claims[0]); diff != "" {
		t.Errorf("claim (-want +got):\n%s", diff)
	}
}
