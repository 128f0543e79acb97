package verify

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
)

// fakeClaims returns fixed claims and keeps the input it was given.
type fakeClaims struct {
	claims []Claim
	mu     sync.Mutex
	ins    []Input
}

func (f *fakeClaims) Claims(_ context.Context, in Input) []Claim {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ins = append(f.ins, in)
	return append([]Claim(nil), f.claims...)
}

var (
	falseClaim = Claim{Kind: "chars", Text: "3,847 characters", Start: 20, End: 36, Path: "post.md", Said: "3,847 characters",
		Measured: "3,341 characters", Verdict: ClaimFalse,
		Feedback: "claims: you said post.md has 3,847 characters; it has 3,341", Fact: "claims: post.md has 3,341 characters, not 3,847"}
	uncheckedClaim = Claim{Kind: "tests", Text: "the tests\npass", Said: "the tests pass", Verdict: ClaimUnchecked, Fact: "the run called mcp_ci, which the check cannot see into"}
	trueClaim      = Claim{Kind: "written", Text: "wrote post.md", Path: "post.md", Verdict: ClaimTrue}
)

func TestClaimsRunWithTheRules(t *testing.T) {
	dir := setup(t, map[string]string{"post.md": chinese(3341)})
	in := Input{Task: "write", Answer: "Done. Total length: 3,847 characters.", Dir: dir, Changed: []string{"post.md"}, Ran: []Ran{}}

	t.Run("a false claim is a FAIL with the real figure, and the judge is not asked", func(t *testing.T) {
		judge, calls := countingJudge("PASS")
		v := &Verifier{Claims: &fakeClaims{claims: []Claim{trueClaim, falseClaim}}, Judge: judge}
		got, _, err := v.Verify(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		want := Verdict{Check: "claims",
			Failures: []Failure{{Check: "claims", Message: falseClaim.Feedback, Detail: falseClaim.Fact}},
			Reason:   "claims: you said post.md has 3,847 characters; it has 3,341",
			Detail:   "claims: post.md has 3,341 characters, not 3,847",
			Claims:   []Claim{trueClaim, falseClaim}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("verdict (-want +got):\n%s", diff)
		}
		if calls.Load() != 0 {
			t.Error("the judge was asked about a false claim")
		}
	})

	t.Run("a failed rule and a false claim come back in one FAIL", func(t *testing.T) {
		v := &Verifier{Rules: []Rule{MinChars("post.md", 4000)}, Claims: &fakeClaims{claims: []Claim{falseClaim}}}
		got, _, _ := v.Verify(context.Background(), in)
		if got.Check != "min-chars" || got.Reason != "min-chars post.md: 3341 < 4000; "+falseClaim.Feedback ||
			got.Detail != "min-chars post.md: 3341 < 4000; "+falseClaim.Fact {
			t.Errorf("verdict %+v", got)
		}
	})

	t.Run("the claims code could not check go to the judge, and only they", func(t *testing.T) {
		var mu sync.Mutex
		var reqs []*llm.Request
		judge := &Judge{Model: llm.ModelFunc(func(_ context.Context, r *llm.Request) (*llm.Response, error) {
			mu.Lock()
			reqs = append(reqs, r)
			mu.Unlock()
			return &llm.Response{Content: []llm.Block{llm.Text("PASS\nok")}}, nil
		}), nonce: func() string { return "N" }}
		v := &Verifier{Claims: &fakeClaims{claims: []Claim{trueClaim, uncheckedClaim}}, Judge: judge}
		got, _, err := v.Verify(context.Background(), in)
		if err != nil || !got.Pass || len(got.Claims) != 2 {
			t.Fatalf("verdict %+v, err %v", got, err)
		}
		user := reqs[0].Messages[0].Text()
		wantSection := "<unchecked-claims-N>\n- \"the tests pass\" (the run called mcp_ci, which the check cannot see into)\n</unchecked-claims-N>"
		if !strings.Contains(user, wantSection) || strings.Contains(user, "wrote post.md") {
			t.Errorf("the judge was shown:\n%s\nwant the unchecked claim, and no checked one", user)
		}
		if !strings.Contains(reqs[0].System, "<unchecked-claims-N>") {
			t.Errorf("the judge's instructions do not say what the list is:\n%s", reqs[0].System)
		}
	})

	t.Run("without unchecked claims the judge's prompt is as before", func(t *testing.T) {
		j := &Judge{nonce: func() string { return "N" }}
		plain := j.request(Input{Task: "t", Answer: "a"}, nil, "N")
		if strings.Contains(plain.System, "unchecked") || strings.Contains(plain.Messages[0].Text(), "unchecked") {
			t.Errorf("a prompt without unchecked claims mentions them:\n%s", plain.System)
		}
	})

	t.Run("a cmd: check that passed counts as a command the run ran", func(t *testing.T) {
		fc := &fakeClaims{}
		v := &Verifier{Rules: []Rule{Cmd("true", 0), Cmd("false", 0)}, Claims: fc}
		v.Verify(context.Background(), Input{Answer: "tests pass", Dir: t.TempDir(), Ran: []Ran{{Tool: "run_command", Command: "ls", OK: true}}})
		want := []Ran{{Tool: "run_command", Command: "ls", OK: true}, {Tool: "check", Command: "true", OK: true, Status: "exit status 0"}}
		if len(fc.ins) != 1 || !cmp.Equal(want, fc.ins[0].Ran) {
			t.Errorf("the claims check was given %+v, want %+v", fc.ins, want)
		}
	})

	t.Run("an empty answer has no claims to check", func(t *testing.T) {
		fc := &fakeClaims{claims: []Claim{falseClaim}}
		got, _, _ := (&Verifier{Claims: fc}).Verify(context.Background(), Input{Answer: " ", Dir: dir})
		if len(fc.ins) != 0 || got.Check != "not-empty" || len(got.Failures) != 1 {
			t.Errorf("verdict %+v after %d claims checks", got, len(fc.ins))
		}
	})

	t.Run("what a claim quotes is redacted like every message", func(t *testing.T) {
		secret := falseClaim
		secret.Text, secret.Feedback, secret.Fact = "sk-live-123 has 3 lines", "claims: you said sk-live-123 has 3 lines", "claims: sk-live-123 does not exist"
		v := &Verifier{Claims: &fakeClaims{claims: []Claim{secret}}, Redact: func(s string) string { return strings.ReplaceAll(s, "sk-live-123", "[redacted]") }}
		got, _, _ := v.Verify(context.Background(), in)
		for _, s := range []string{got.Reason, got.Detail, got.Claims[0].Text, got.Claims[0].Feedback, got.Failures[0].Detail} {
			if strings.Contains(s, "sk-live-123") {
				t.Errorf("%q holds the secret", s)
			}
		}
	})
}
