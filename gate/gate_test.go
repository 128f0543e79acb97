package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/tool"
)

var t0 = time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)

func command(line string) Action {
	in, _ := json.Marshal(map[string]string{"command": line})
	return Action{Run: "r1", Tool: "run_command", Class: tool.Danger, Input: in}
}

// answering is an Asker that gives one answer and remembers what it was
// shown.
type answering struct {
	answer Answer
	asked  []Action
}

func (a *answering) Ask(_ context.Context, act Action) (Answer, error) {
	a.asked = append(a.asked, act)
	return a.answer, nil
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		specs  []string
		asker  *answering // nil: no terminal
		action Action
		want   Verdict
		asked  int
	}{
		{
			name:   "a read is allowed by policy without asking",
			asker:  &answering{answer: No},
			action: Action{Tool: "read_file", Class: tool.Read, Input: json.RawMessage(`{"path":"a"}`)},
			want:   Verdict{Decision: Allow, By: ByPolicy, Reason: "allowed by the rule read=allow"},
		},
		{
			name:   "a command asks and a person's yes allows it",
			asker:  &answering{answer: Yes},
			action: command("make test"),
			want:   Verdict{Decision: Allow, By: ByPerson, Reason: "approved by the person at the terminal"},
			asked:  1,
		},
		{
			name:   "a command asks and a person's no refuses it",
			asker:  &answering{answer: No},
			action: command("rm -rf build"),
			want:   Verdict{Decision: Deny, By: ByPerson, Reason: "refused by the person at the terminal; take another way"},
			asked:  1,
		},
		{
			name:   "with no terminal, ask is a deny by policy",
			action: command("make test"),
			want: Verdict{Decision: Deny, By: ByPolicy, Reason: "refused by policy: the rule danger=ask needs a person's approval " +
				"and no terminal is attached to ask one; take another way"},
		},
		{
			name:   "a deny rule refuses without asking",
			specs:  []string{"run_command=deny"},
			asker:  &answering{answer: Yes},
			action: command("make test"),
			want:   Verdict{Decision: Deny, By: ByPolicy, Reason: "refused by policy (rule run_command=deny); take another way"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePolicy(tt.specs...)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Policy: p, Clock: clock.NewFake(t0)}
			if tt.asker != nil {
				cfg.Asker = tt.asker
			}
			got, err := New(cfg).Check(t.Context(), tt.action)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if tt.asker != nil && len(tt.asker.asked) != tt.asked {
				t.Errorf("the person was asked %d times, want %d", len(tt.asker.asked), tt.asked)
			}
		})
	}
}

func TestRefusalResultSaysWhoRefused(t *testing.T) {
	v, err := New(Config{}).Check(t.Context(), command("make"))
	if err != nil {
		t.Fatal(err)
	}
	res := v.Result("run_command")
	if !res.IsError {
		t.Error("a refusal is not an error result")
	}
	for _, want := range []string{"refused", "run_command was not run", "policy", "no terminal"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("refusal %q does not say %q", res.Content, want)
		}
	}
}

func TestAPersonsYesAllowsTheSameCallAgain(t *testing.T) {
	asker := &answering{answer: Yes}
	g := New(Config{Asker: asker})
	first := command("make test")
	if _, err := g.Check(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	// The same call with its JSON spelled differently is the same call.
	again := first
	again.Input = json.RawMessage(`{ "command" : "make test" }`)
	v, err := g.Check(t.Context(), again)
	if err != nil {
		t.Fatal(err)
	}
	if v.By != ByApproval || len(asker.asked) != 1 {
		t.Errorf("second identical call: by %s after %d questions; want by approval after 1", v.By, len(asker.asked))
	}
	if _, err := g.Check(t.Context(), command("make clean")); err != nil {
		t.Fatal(err)
	}
	if len(asker.asked) != 2 {
		t.Errorf("a different command was not asked about")
	}
}

// Regression: the ledger stores a parked action redacted, so an approved
// call that held a key came back as [redacted] and never matched the call
// again: the task parked at every attempt.
func TestAnApprovalStoredRedactedMatchesTheCall(t *testing.T) {
	const key = "sk-ant-api03-approve-0123456789"
	red := func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }
	call := command("curl -H 'x-api-key: " + key + "' https://api.example/deploy")
	stored := red(Key(call.Tool, call.Input))
	if NewApprovals(stored).Approved(call) {
		t.Fatal("the redacted key matched without Redacting: the test proves nothing")
	}
	a := NewApprovals(stored).Redacting(red)
	if !a.Approved(call) {
		t.Error("the call whose approval was stored redacted is not approved")
	}
	if a.Approved(command("curl -H 'x-api-key: other-key-0123' https://api.example/deploy")) {
		t.Error("a call with another value where the key was is approved")
	}
}

func TestPreApprovedCall(t *testing.T) {
	approved := NewApprovals(Key("run_command", json.RawMessage(`{"command":"make deploy"}`)))
	tests := []struct {
		name   string
		specs  []string
		action Action
		want   Decision
		by     By
	}{
		{"an approved call is allowed where the policy asks", nil, command("make deploy"), Allow, ByApproval},
		{"another call still needs a person", nil, command("make deploy --force"), Deny, ByPolicy},
		{"an approval does not beat a deny rule", []string{"danger=deny"}, command("make deploy"), Deny, ByPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePolicy(tt.specs...)
			if err != nil {
				t.Fatal(err)
			}
			v, err := New(Config{Policy: p, Approved: approved}).Check(t.Context(), tt.action)
			if err != nil {
				t.Fatal(err)
			}
			if v.Decision != tt.want || v.By != tt.by {
				t.Errorf("verdict = %s by %s, want %s by %s", v.Decision, v.By, tt.want, tt.by)
			}
		})
	}
}

func TestParkerParksTheCall(t *testing.T) {
	var buf bytes.Buffer
	g := New(Config{Asker: Parker, Audit: NewAudit(&buf), Clock: clock.NewFake(t0)})
	_, err := g.Check(t.Context(), command("make deploy"))
	var parked *ParkedError
	if !errors.Is(err, ErrParked) || !errors.As(err, &parked) {
		t.Fatalf("err = %v, want a ParkedError", err)
	}
	if parked.Action.Summary != "run_command: make deploy" {
		t.Errorf("the parked call's summary = %q", parked.Action.Summary)
	}
	// Approving the parked call lets it through next time.
	approved := NewApprovals(Key(parked.Action.Tool, parked.Action.Input))
	v, err := New(Config{Asker: Parker, Approved: approved}).Check(t.Context(), command("make deploy"))
	if err != nil || !v.Allowed() {
		t.Errorf("after approval: verdict %+v, err %v; want allowed", v, err)
	}
	entries, err := ReadAudit(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Decision != "park" {
		t.Errorf("audit = %+v, want one park entry", entries)
	}
}

func TestEveryDecisionIsAudited(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".nightshift", "audit.jsonl")
	audit, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePolicy("deploy=deny")
	if err != nil {
		t.Fatal(err)
	}
	fake := clock.NewFake(t0)
	g := New(Config{Policy: p, Asker: &answering{answer: No}, Audit: audit, Clock: fake})
	actions := []Action{
		{Run: "r1", Tool: "read_file", Class: tool.Read, Input: json.RawMessage(`{"path":"a.md"}`)},
		command("rm -rf /"),
		{Run: "r1", Tool: "deploy", Class: tool.Danger, Input: json.RawMessage(`{"env":"prod"}`)},
	}
	for _, a := range actions {
		if _, err := g.Check(t.Context(), a); err != nil {
			t.Fatal(err)
		}
		fake.Advance(time.Second)
	}
	audit.Close()
	// A second log opened on the same file appends after the first.
	audit2, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{Audit: audit2, Clock: fake}).Check(t.Context(), command("ls")); err != nil {
		t.Fatal(err)
	}
	audit2.Close()

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadAudit(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Time: t0, Run: "r1", Tool: "read_file", Class: tool.Read, Input: `read_file {"path":"a.md"}`, Decision: "allow", By: ByPolicy, Reason: "allowed by the rule read=allow"},
		{Time: t0.Add(time.Second), Run: "r1", Tool: "run_command", Class: tool.Danger, Input: "run_command: rm -rf /", Decision: "deny", By: ByPerson, Reason: "refused by the person at the terminal; take another way"},
		{Time: t0.Add(2 * time.Second), Run: "r1", Tool: "deploy", Class: tool.Danger, Input: `deploy {"env":"prod"}`, Decision: "deny", By: ByPolicy, Reason: "refused by policy (rule deploy=deny); take another way"},
		{Time: t0.Add(3 * time.Second), Run: "r1", Tool: "run_command", Class: tool.Danger, Input: "run_command: ls", Decision: "deny", By: ByPolicy, Reason: "refused by policy: the rule danger=ask needs a person's approval and no terminal is attached to ask one; take another way"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("audit log (-want +got):\n%s", diff)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode = %v, want -rw-------", info.Mode().Perm())
	}
}

type failingAudit struct{}

func (failingAudit) Record(Entry) error { return errors.New("disk full") }

func TestAnUnauditedCallDoesNotRun(t *testing.T) {
	v, err := New(Config{Audit: failingAudit{}}).Check(t.Context(), Action{Tool: "read_file", Class: tool.Read, Input: json.RawMessage(`{}`)})
	if err == nil || v.Allowed() {
		t.Errorf("verdict %+v, err %v; want a deny and an error", v, err)
	}
}

func TestCheckFillsThePreviewFromTheWorkspace(t *testing.T) {
	files := fstest.MapFS{"notes.md": {Data: []byte("one\ntwo\nthree\n")}}
	asker := &answering{answer: Yes}
	g := New(Config{Asker: asker, Files: files, Policy: mustPolicy(t, "write=ask")})
	a := Action{Tool: "edit_file", Class: tool.Write, Input: json.RawMessage(`{"path":"notes.md","old":"two","new":"2"}`)}
	if _, err := g.Check(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	want := "edit_file notes.md (replace 3 bytes with 1 bytes)\n--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
	if diff := cmp.Diff(want, asker.asked[0].Preview); diff != "" {
		t.Errorf("preview shown to the person (-want +got):\n%s", diff)
	}
}

func mustPolicy(t *testing.T, specs ...string) Policy {
	t.Helper()
	p, err := ParsePolicy(specs...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Issue 10: a symlink planted where the audit log belongs (a repository
// shipping .nightshift/audit.jsonl -> somewhere) is refused, not followed.
func TestTheAuditLogIsNeverOpenedThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(target, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "audit.jsonl")); err != nil {
		t.Fatal(err)
	}
	if a, err := OpenAudit(filepath.Join(dir, "audit.jsonl")); err == nil {
		a.Close()
		t.Fatal("OpenAudit followed a symlink")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
}
