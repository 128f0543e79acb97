// Package verify decides whether a run's "done" is true. A model's "done" is
// a claim, not a fact (seed 000, section 3.3): the one who does the work is
// not the one who checks it.
//
// Checks come in two tiers, cheapest first. Rules are counted by code, never
// by the model: deterministic, free and immune to sweet talk. Every rule
// runs, and all their failures come back in one FAIL. Only when every rule
// passes is the Judge asked: one separate, history-free model call that sees
// the task, the final answer and the final content of the changed files,
// and nothing of the conversation that produced them (seed 000, section 4.3:
// a judge shown the struggle grades the struggle).
//
//	var rules []verify.Rule
//	for _, spec := range []string{"min-chars:post.md:4000", "cmd:go test ./..."} {
//		r, err := verify.ParseRule(spec, ".")
//		if err != nil {
//			return err // a usage error: the rule cannot run
//		}
//		rules = append(rules, r)
//	}
//
// A program can build the same rules directly: verify.Exists("post.md"),
// verify.MinChars("post.md", 4000), verify.Contains, verify.Matches,
// verify.MinWords, verify.MaxChars, verify.JSON and verify.Cmd are what
// ParseRule is built on.
//
//	v := &verify.Verifier{Rules: rules, Judge: &verify.Judge{Model: m, ModelName: "claude-sonnet-4-5"}}
//	verdict, usage, err := v.Verify(ctx, verify.Input{Task: task, Answer: answer, Dir: root.Dir(), Files: root.FS(), Changed: changed})
//	if err == nil && !verdict.Pass {
//		// the next user message of the worker's loop
//		next := llm.UserText("[verifier] FAIL: " + verdict.Reason + "\nThe task is NOT done.")
//	}
package verify
