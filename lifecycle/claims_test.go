package lifecycle_test

import (
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/verify"
)

// claimsFourThousand writes 6 characters and reports 4,000, then says
// what it wrote once told the real figure.
const claimsFourThousand = `
turns:
  - tool_calls: [{name: write_file, input: {path: post.md, content: "智能体的错误"}}]
  - text: "Done. post.md has 4,000 characters."
  - text: "post.md has 6 characters."
`

func TestEveryRunChecksTheAnswersClaims(t *testing.T) {
	t.Run("on by default, with no rule written", func(t *testing.T) {
		f := setup(t, claimsFourThousand)
		res := f.run(t)
		if res.Outcome != agent.Done || res.FailsByCheck["claims"] != 1 {
			t.Fatalf("outcome %s (%s), FAILs %v; want done after one claims FAIL", res.Outcome, res.Reason, res.FailsByCheck)
		}
		var lines []string
		for _, e := range f.events.Events() {
			if e.Type == "verify" {
				lines = append(lines, e.Line())
			}
		}
		if len(lines) != 2 || lines[0] != "[verify · FAIL: claims: post.md has 6 characters, not about 4,000]" {
			t.Errorf("verify lines %q", lines)
		}
	})
	t.Run("off with NoClaims", func(t *testing.T) {
		f := setup(t, claimsFourThousand)
		f.cfg.Verifier = &verify.Verifier{NoClaims: true}
		res := f.run(t)
		if res.Outcome != agent.Done || res.Steps != 2 || strings.Contains(res.Answer, "6 characters") {
			t.Errorf("outcome %s after %d steps, answer %q; want done on the first answer", res.Outcome, res.Steps, res.Answer)
		}
	})
	t.Run("a caller's verifier is not changed", func(t *testing.T) {
		v := &verify.Verifier{}
		f := setup(t, claimsFourThousand)
		f.cfg.Verifier = v
		f.run(t)
		if v.Claims != nil {
			t.Error("the run set the claims check on the caller's verifier, which callers share across runs")
		}
	})
}
