package batch_test

import (
	"context"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// A batch's task gets the claims check through the run lifecycle: the
// worker that reports 4,000 characters for 6 is told the real figure.
func TestABatchTaskChecksTheAnswersClaims(t *testing.T) {
	sc, err := scripted.Parse([]byte(`
turns:
  - tool_calls: [{name: write_file, input: {path: post.md, content: "智能体的错误"}}]
  - text: "post.md has 4,000 characters."
  - cases:
      - when: {in: last, contains: "claims: you said post.md has about 4,000 characters; it has 6"}
        text: "post.md has 6 characters."
      - text: "post.md has 4,000 characters."
`))
	if err != nil {
		t.Fatal(err)
	}
	base := lifecycle.Config{Model: scripted.New(sc, scripted.Config{})}
	spec := &taskfile.Spec{Name: "post", Task: "write post.md", BaseDir: "."}
	spec.NoJudge = true
	sum, err := batch.Run(context.Background(), batch.Config{Parallel: 1, WorkDir: t.TempDir(), Run: batch.AgentRunner(base)},
		[]*taskfile.Spec{spec})
	if err != nil {
		t.Fatal(err)
	}
	res := sum.Tasks[0].Result
	if res.Outcome != agent.Done || res.FailsByCheck["claims"] != 1 {
		t.Errorf("outcome %s (%s), FAILs by check %v; want done after one claims FAIL", res.Outcome, res.Reason, res.FailsByCheck)
	}
}
