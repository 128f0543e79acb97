package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/verify"
)

func rule(t *testing.T, spec string) verify.Rule {
	t.Helper()
	r, err := verify.ParseRule(spec, ".")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerification(t *testing.T) {
	t.Run("a failing rule feeds the measured figure back to the worker without asking the judge", func(t *testing.T) {
		f := setup(t, `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns: [{text: "PASS\nfine"}]
  - name: worker
    turns:
      - tool_calls: [{name: write_file, input: {path: post.md, content: "short post"}}]
      - text: "Done: 4,210 characters, meets the requirement."
      - tool_calls: [{name: write_file, input: {path: post.md, content: "a much longer post, long enough"}}]
      - text: done for real
`, nil)
		judge := &recorder{Model: f.model.Model}
		f.cfg.Verifier = &verify.Verifier{
			Rules: []verify.Rule{rule(t, "min-chars:post.md:20")},
			Judge: &verify.Judge{Model: judge},
		}
		res := agent.Run(context.Background(), f.cfg, "write post.md of at least 20 characters")
		if res.Outcome != agent.Done {
			t.Fatalf("outcome = %s (%s)", res.Outcome, res.Reason)
		}
		feedback := lastText(f.model.requests()[2])
		if !strings.Contains(feedback, "min-chars post.md: 10 < 20") || !strings.HasPrefix(feedback, "[verifier] FAIL: ") {
			t.Errorf("feedback = %q, want the measured figure beside the required one", feedback)
		}
		if n := len(judge.requests()); n != 1 {
			t.Errorf("judge calls = %d, want 1 (only after every rule passed)", n)
		}
		if res.FailsByCheck["min-chars"] != 1 {
			t.Errorf("fails by check = %v", res.FailsByCheck)
		}
	})

	t.Run("verify rounds run out: N FAILs fed back, the N+1th ends unverified with the answer", func(t *testing.T) {
		f := setup(t, `
loop: true
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns: [{text: "FAIL: only 3 of the 5 steps"}]
  - name: worker
    turns: [{text: "done, trust me"}]
`, nil)
		judge := &recorder{Model: f.model.Model}
		f.cfg.Verifier = &verify.Verifier{Judge: &verify.Judge{Model: judge}}
		f.cfg.Spec.MaxVerifyRounds = 2
		res := agent.Run(context.Background(), f.cfg, "write all 5 steps")
		if res.Outcome != agent.Unverified {
			t.Fatalf("outcome = %s", res.Outcome)
		}
		if n := len(judge.requests()); n != 3 {
			t.Errorf("verifications = %d, want N+1 = 3", n)
		}
		if res.Answer != "done, trust me" {
			t.Errorf("answer = %q: an unverified run still carries its answer", res.Answer)
		}
		if res.FailsByCheck["judge"] != 3 || !strings.Contains(res.Reason, "judge") {
			t.Errorf("fails %v, reason %q", res.FailsByCheck, res.Reason)
		}
		if got := f.lines("verify"); len(got) != 3 || got[0] != "[verify · FAIL: only 3 of the 5 steps]" {
			t.Errorf("verify lines = %q", got)
		}
	})

	t.Run("a FAIL when no step is left ends unverified", func(t *testing.T) {
		f := setup(t, `{loop: true, turns: [{empty: true}]}`, nil)
		f.cfg.Spec.MaxSteps = 1
		res := agent.Run(context.Background(), f.cfg, "x")
		if res.Outcome != agent.Unverified || res.Steps != 1 {
			t.Fatalf("outcome %s after %d steps", res.Outcome, res.Steps)
		}
	})

	t.Run("a judge call that still fails after retries ends the run as api-failure", func(t *testing.T) {
		f := setup(t, `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns: [{status: 500}]
  - name: worker
    turns: [{text: done}]
`, nil)
		f.cfg.Retry.Retries = 1
		f.cfg.Verifier = &verify.Verifier{Judge: &verify.Judge{Model: f.model.Model}}
		res := agent.Run(context.Background(), f.cfg, "x")
		if res.Outcome != agent.APIFailure || llm.ClassOf(res.Err) != llm.Transient {
			t.Fatalf("outcome %s, err %v", res.Outcome, res.Err)
		}
		if got := f.lines("retry"); len(got) != 1 {
			t.Errorf("retry lines = %q: the judge goes through the same retry layer", got)
		}
	})

	t.Run("the judge sees the task, the answer and the changed files, never the conversation", func(t *testing.T) {
		f := setup(t, `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns: [{text: PASS}]
  - name: worker
    turns:
      - {text: "let me think about SECRET-REASONING", tool_calls: [{name: read_file, input: {path: in.txt}}]}
      - tool_calls: [{name: write_file, input: {path: out.txt, content: "FINAL-CONTENT"}}]
      - text: FINAL-ANSWER
`, map[string]string{"in.txt": "TOOL-OUTPUT"})
		judge := &recorder{Model: f.model.Model}
		f.cfg.Verifier = &verify.Verifier{Judge: &verify.Judge{Model: judge}}
		res := agent.Run(context.Background(), f.cfg, "copy in.txt to out.txt")
		if res.Outcome != agent.Done {
			t.Fatalf("outcome = %s (%s)", res.Outcome, res.Reason)
		}
		reqs := judge.requests()
		if len(reqs) != 1 || len(reqs[0].Messages) != 1 || len(reqs[0].Tools) != 0 {
			t.Fatalf("judge requests = %+v, want one single-message call without tools", reqs)
		}
		text := reqs[0].System + reqs[0].Messages[0].Text()
		for _, want := range []string{"copy in.txt to out.txt", "FINAL-ANSWER", "FINAL-CONTENT", "out.txt"} {
			if !strings.Contains(text, want) {
				t.Errorf("judge request lacks %q", want)
			}
		}
		for _, never := range []string{"SECRET-REASONING", "TOOL-OUTPUT", "read_file"} {
			if strings.Contains(text, never) {
				t.Errorf("judge request holds history: %q", never)
			}
		}
	})
}

func TestJudgeOnAnotherCredentialIsPacedByItsOwnLimiter(t *testing.T) {
	f := setup(t, `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns:
      - attempts:
          - {status: 429, headers: {retry-after: "7"}}
          - {text: PASS}
  - name: worker
    turns: [{text: done}]
`, nil)
	worker := retry.NewLimiter(retry.LimiterConfig{Clock: f.clock})
	judge := retry.NewLimiter(retry.LimiterConfig{Clock: f.clock})
	f.cfg.Retry.Limiter = worker
	f.cfg.JudgeLimiter = judge
	f.cfg.Verifier = &verify.Verifier{Judge: &verify.Judge{Model: f.model.Model}}
	start := f.clock.Now()
	res := agent.Run(context.Background(), f.cfg, "x")
	if res.Outcome != agent.Done {
		t.Fatalf("outcome = %s (%s)", res.Outcome, res.Reason)
	}
	if got := judge.State().BlockedUntil; !got.Equal(start.Add(7 * time.Second)) {
		t.Errorf("judge limiter blocked until %v, want the judge's 429 held there (start+7s)", got)
	}
	if got := worker.State().BlockedUntil; !got.IsZero() {
		t.Errorf("worker limiter blocked until %v: the judge's 429 must not hold the worker's credential", got)
	}
}
