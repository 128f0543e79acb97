package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/sandbox"
	"github.com/nightshift-dev/nightshift/sandbox/sandboxtest"
)

// A cmd: check runs in the run's sandbox, as run_command does: under
// bwrap it cannot change .git (where a hook or fsmonitor line would run
// as the user) nor anything outside the workspace.
func TestCmdRunsInTheRunsSandbox(t *testing.T) {
	dir := setup(t, map[string]string{".git/config": "[core]\n"})
	sb, err := sandbox.New(sandbox.Config{Mode: sandbox.Bwrap, Dir: dir})
	sandboxtest.NeedBwrap(t, err)
	v := &Verifier{Rules: []Rule{Cmd("echo '[core] fsmonitor = touch PWNED' >> .git/config", 0)}, Commands: sb}
	verdict, _, err := v.Verify(context.Background(), Input{Answer: "done", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if verdict.Pass || !strings.Contains(verdict.Reason, "Read-only file system") {
		t.Errorf("verdict %+v; want a FAIL from a read-only .git", verdict)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config = %q", b)
	}
}

func TestVerifierRedactsWhatGoesBack(t *testing.T) {
	t.Setenv("MY_CHECK_TOKEN", "0123456789-secret")
	dir := t.TempDir()
	v := &Verifier{
		Rules:  []Rule{Cmd("echo the secret is 0123456789-secret; exit 1", 0)},
		Redact: func(s string) string { return strings.ReplaceAll(s, "0123456789-secret", "[redacted]") },
	}
	verdict, _, err := v.Verify(context.Background(), Input{Answer: "done", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(verdict.Reason+verdict.Failures[0].Message, "0123456789-secret") || !strings.Contains(verdict.Reason, "[redacted]") {
		t.Errorf("verdict %+v", verdict)
	}
}

// The judge may be another provider: a key in the answer or a changed
// file does not travel there.
func TestTheJudgeIsSentNoSecret(t *testing.T) {
	dir := setup(t, map[string]string{"notes.md": "the key: 0123456789-secret\n"})
	m := &judgeModel{reply: "PASS"}
	v := &Verifier{
		Judge:  &Judge{Model: m},
		Redact: func(s string) string { return strings.ReplaceAll(s, "0123456789-secret", "[redacted]") },
	}
	if _, _, err := v.Verify(context.Background(), Input{Task: "t", Answer: "found 0123456789-secret", Dir: dir, Changed: []string{"notes.md"}}); err != nil {
		t.Fatal(err)
	}
	if u := m.userText(t); strings.Contains(u, "0123456789-secret") || strings.Count(u, "[redacted]") != 2 {
		t.Errorf("the judge was sent:\n%s", u)
	}
}
