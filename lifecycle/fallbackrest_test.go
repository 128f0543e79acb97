package lifecycle_test

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/verify"
)

// TestTheJudgeDoesNotCallAPrimaryThatRests is a regression test: the
// judge is the worker's own model (no --judge-model), the worker's calls
// fell back and the primary rests, and the judge's call went to the
// primary anyway, through all its retries (with real backoff, seconds
// of waiting), before falling back itself. A primary that rests rests
// for every call of the run that would go to it: the judge's call goes
// straight to the fallback, and there is one fallback event.
func TestTheJudgeDoesNotCallAPrimaryThatRests(t *testing.T) {
	f := setup(t, `{loop: true, turns: [{status: 529}]}`)
	fallbackSetup(t, f, `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns: [{text: "PASS"}]
  - name: worker
    turns:
      - tool_calls: [{name: write_file, input: {path: notes.md, content: "new\n"}}]
      - text: Rewrote notes.md.
`)
	var primaryCalls int
	inner := f.cfg.Model
	f.cfg.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		primaryCalls++
		return inner.Generate(ctx, req)
	})
	f.cfg.Verifier = &verify.Verifier{Judge: &verify.Judge{Model: f.cfg.Model, ModelName: f.cfg.Spec.ModelName}}
	f.cfg.Retry = retry.Policy{Retries: 2}
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if primaryCalls != 3 {
		t.Errorf("the primary was called %d times, want 3 (the worker's first call and 2 retries; then it rests, for the judge too)", primaryCalls)
	}
	if fb := eventsOf(f.events, "fallback"); len(fb) != 1 {
		t.Errorf("%d fallback events, want 1: %v", len(fb), fb)
	}
}

// TestASubAgentDoesNotCallAPrimaryThatRests is a regression test: a
// lifecycle.Config.Fallback without a Rest gave the run and each of its
// sub-agents (delegate_task) a rest of their own, so after the worker's
// calls fell back the sub-agent called the resting primary again,
// through all its retries. The run's calls share one rest.
func TestASubAgentDoesNotCallAPrimaryThatRests(t *testing.T) {
	f := setup(t, `{loop: true, turns: [{status: 529}]}`)
	fallbackSetup(t, f, `
scripts:
  - name: child
    when: {in: system, contains: "You are a sub-agent"}
    turns: [{text: "notes.md says: old"}]
  - name: worker
    turns:
      - tool_calls: [{name: delegate_task, input: {brief: "What does notes.md say?"}}]
      - text: The notes say old.
`)
	var primaryCalls int
	inner := f.cfg.Model
	f.cfg.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		primaryCalls++
		return inner.Generate(ctx, req)
	})
	f.cfg.Spec.Subagents = true
	f.cfg.Retry = retry.Policy{Retries: 2}
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	if primaryCalls != 3 {
		t.Errorf("the primary was called %d times, want 3 (the worker's first call and 2 retries; then it rests, for the sub-agent too)", primaryCalls)
	}
}
