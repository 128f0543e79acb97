package eval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/verify/eval"
)

// TestNoVerdictIsNotFAIL: a judge that never gives a verdict (a small
// local model that does not answer in the format) is reported apart from
// a strict judge that fails everything; both were 0 % PASS and read the
// same (issue 28).
func TestNoVerdictIsNotFAIL(t *testing.T) {
	judge := func(t *testing.T, reply string) (*eval.Report, string) {
		t.Helper()
		sc, err := scripted.Parse([]byte("loop: true\nturns: [{text: " + reply + "}]"))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eval.Run(context.Background(), eval.Config{Judge: scripted.New(sc, scripted.Config{}), JudgeModel: "scripted"}, eval.DefaultCases())
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		rep.WriteText(&b)
		return rep, b.String()
	}
	silent, silentText := judge(t, `"The work looks thorough to me."`)
	strict, strictText := judge(t, `"FAIL: not good enough"`)
	if m := silent.Isolated; m.NoVerdict != 12 || m.FalseFail != 0 || m.Agreement.Mean != 0 {
		t.Errorf("the silent judge, isolated: %+v; want 12 without a verdict, no false FAIL, no agreement", m)
	}
	if m := strict.Isolated; m.NoVerdict != 0 || m.FalseFail != 6 || m.Agreement.Mean != 0.5 {
		t.Errorf("the strict judge, isolated: %+v; want 6 false FAILs, half agreeing", m)
	}
	if !strings.Contains(silentText, "no verdict") || !strings.Contains(silentText, "The judge gave no verdict 24 times") || !strings.Contains(silentText, "NO VERDICT") {
		t.Errorf("the silent judge's report does not say it gave no verdict:\n%s", silentText)
	}
	if strings.Contains(strictText, "no verdict") {
		t.Errorf("the strict judge's report speaks of no verdict:\n%s", strictText)
	}
}
