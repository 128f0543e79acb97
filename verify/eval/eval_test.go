package eval

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// recorder wraps a model and keeps every request it saw.
type recorder struct {
	llm.Model
	mu   sync.Mutex
	reqs []*llm.Request
}

func (r *recorder) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Model.Generate(ctx, req)
}

// scriptedJudge plays testdata/judge.yaml: a judge that decides from what
// it is shown, and goes soft when shown a long transcript.
func scriptedJudge(t *testing.T) *recorder {
	t.Helper()
	sc, err := scripted.Load("testdata/judge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return &recorder{Model: scripted.New(sc, scripted.Config{})}
}

func TestIsolationKeepsTheJudgeHonest(t *testing.T) {
	judge := scriptedJudge(t)
	cases := DefaultCases()
	rep, err := Run(context.Background(), Config{Judge: judge, JudgeModel: "scripted-judge"}, cases)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(judge.reqs); got != 2*len(cases) {
		t.Fatalf("judge called %d times, want %d (twice per case)", got, 2*len(cases))
	}
	for i, req := range judge.reqs {
		shown := strings.Contains(req.Messages[0].Text(), "<transcript-")
		if want := i%2 == 1; shown != want || len(req.Messages) != 1 || req.Model != "scripted-judge" {
			t.Errorf("call %d: transcript shown %v, want %v; %d messages; model %q", i, shown, want, len(req.Messages), req.Model)
		}
	}
	iso, tr := rep.Isolated, rep.Transcript
	if iso.Agreement.Mean < 0.9 {
		t.Errorf("isolated agreement %.2f, want at least 0.9", iso.Agreement.Mean)
	}
	if tr.PassRate.Mean <= iso.PassRate.Mean {
		t.Errorf("transcript PASS rate %.2f is not above isolated %.2f: the judge did not go soft", tr.PassRate.Mean, iso.PassRate.Mean)
	}
	if tr.FalsePass <= iso.FalsePass {
		t.Errorf("false PASSes: transcript %d, isolated %d; the transcript should let more half-finished work through", tr.FalsePass, iso.FalsePass)
	}
	if iso.FalseFail != 0 || tr.FalseFail != 0 {
		t.Errorf("finished work was failed: isolated %d, transcript %d", iso.FalseFail, tr.FalseFail)
	}
	if rep.Rules.Wrong != 0 || rep.Rules.Caught == 0 {
		t.Errorf("rules: %+v; they should catch some half-finished work and fail no finished work", rep.Rules)
	}
	var judged int
	for check, n := range rep.FailsByCheck {
		if check == "judge" {
			judged = n
		}
	}
	if judged == 0 || len(rep.FailsByCheck) < 2 {
		t.Errorf("FAILs by check %v: want both rules and the judge deciding some", rep.FailsByCheck)
	}
	if rep.Usage.Total() == 0 {
		t.Error("no judge tokens counted")
	}
}

func TestRunsGiveASpread(t *testing.T) {
	// A judge that passes everything on even calls and fails on odd ones
	// varies from run to run.
	var mu sync.Mutex
	calls := 0
	judge := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		reply := "FAIL\nnot convinced"
		if (calls+1)/2%3 == 0 {
			reply = "PASS"
		}
		return &llm.Response{Content: []llm.Block{llm.Text(reply)}}, nil
	})
	cases := DefaultCases()[:4]
	var seen []Result
	rep, err := Run(context.Background(), Config{Judge: judge, Runs: 3, Progress: func(r Result) { seen = append(seen, r) }}, cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3*2*len(cases) || len(rep.Results) != len(seen) {
		t.Fatalf("progress saw %d results, report holds %d; want %d", len(seen), len(rep.Results), 3*2*len(cases))
	}
	s := rep.Isolated.PassRate
	if !(s.Min < s.Max) || s.StdDev <= 0 || s.Mean < s.Min || s.Mean > s.Max {
		t.Errorf("isolated PASS rate spread %+v: want a range and a deviation", s)
	}
}

func TestRunStopsOnAFailedJudgeCall(t *testing.T) {
	n := 0
	judge := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		n++
		if n == 3 {
			return nil, &llm.Error{Provider: "scripted", Class: llm.Auth, Status: 401}
		}
		return &llm.Response{Content: []llm.Block{llm.Text("PASS")}}, nil
	})
	rep, err := Run(context.Background(), Config{Judge: judge}, DefaultCases())
	if llm.ClassOf(err) != llm.Auth || !strings.Contains(err.Error(), DefaultCases()[1].Name) {
		t.Fatalf("err = %v, want the auth failure naming the second case", err)
	}
	if rep == nil || len(rep.Results) != 2 {
		t.Fatalf("want the report so far with 2 results, got %+v", rep)
	}
	if rep.Isolated.PassRate != (Spread{}) {
		t.Errorf("an incomplete run counted towards the shares: %+v", rep.Isolated.PassRate)
	}
}
