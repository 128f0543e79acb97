package eval

import (
	"context"
	"math"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/verify"
)

// Report is what an eval measured.
type Report struct {
	// Model is the judge model's name as configured.
	Model string
	// Cases and Runs are the eval's size; ExpectedPass counts the cases
	// expected to pass.
	Cases, Runs, ExpectedPass int
	// Isolated and Transcript summarise each condition.
	Isolated, Transcript ModeReport
	// Rules summarises the cases' checks.
	Rules RulesReport
	// FailsByCheck counts, over all runs, the FAILs a full verification
	// would give, by the check that decides them: the first failing rule,
	// or "judge" (isolated) when every rule passed.
	FailsByCheck map[string]int
	// Results holds every verdict, in the order they were given.
	Results []Result
	// Usage sums the judge calls' tokens.
	Usage llm.Usage
}

// ModeReport summarises one condition.
type ModeReport struct {
	Mode Mode
	// PassRate is the share of cases judged PASS, per run.
	PassRate Spread
	// Agreement is the share of verdicts matching the expectation, per run.
	Agreement Spread
	// FalsePass counts, over all runs, expected FAILs judged PASS: the
	// half-finished work that would have gone through.
	FalsePass int
	// FalseFail counts expected PASSes judged FAIL.
	FalseFail int
	// NoVerdict counts, over all runs, the cases the judge gave no
	// verdict on: neither agreement nor a false FAIL.
	NoVerdict int
}

// Spread describes a share measured once per run, each from 0 to 1.
type Spread struct {
	Mean, Min, Max, StdDev float64
}

// spreadOf returns the mean, range and population standard deviation.
func spreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := Spread{Min: xs[0], Max: xs[0]}
	for _, x := range xs {
		s.Mean += x
		s.Min = min(s.Min, x)
		s.Max = max(s.Max, x)
	}
	s.Mean /= float64(len(xs))
	for _, x := range xs {
		s.StdDev += (x - s.Mean) * (x - s.Mean)
	}
	s.StdDev = math.Sqrt(s.StdDev / float64(len(xs)))
	return s
}

// RulesReport summarises the cases' checks, run once per case.
type RulesReport struct {
	// Cases counts the cases that have checks.
	Cases int
	// Failed counts the cases some rule failed.
	Failed int
	// Caught counts the expected-FAIL cases some rule failed.
	Caught int
	// Wrong counts the expected-PASS cases some rule failed.
	Wrong int
}

// add runs c's checks and returns the name of the first failing rule, or
// "" when all pass (or there are none).
func (rr *RulesReport) add(ctx context.Context, c *Case, in verify.Input) string {
	if len(c.rules) == 0 {
		return ""
	}
	rr.Cases++
	first := ""
	for _, r := range c.rules {
		if f := r.Check(ctx, in); f != nil && first == "" {
			first = f.Check
		}
	}
	if first != "" {
		rr.Failed++
		if c.ExpectPass() {
			rr.Wrong++
		} else {
			rr.Caught++
		}
	}
	return first
}

func (rep *Report) countDecision(rule string, judgePass bool) {
	if rep.FailsByCheck == nil {
		rep.FailsByCheck = map[string]int{}
	}
	switch {
	case rule != "":
		rep.FailsByCheck[rule]++
	case !judgePass:
		rep.FailsByCheck["judge"]++
	}
}

// finish computes the per-condition summaries from Results.
func (rep *Report) finish() {
	for _, mode := range Modes {
		m := ModeReport{Mode: mode}
		pass := make([]float64, rep.Runs)
		agree := make([]float64, rep.Runs)
		runs := 0
		for _, r := range rep.Results {
			if r.Mode != mode {
				continue
			}
			runs = max(runs, r.Run)
			if r.Pass {
				pass[r.Run-1]++
			}
			switch {
			case r.NoVerdict:
				m.NoVerdict++
			case r.Agree:
				agree[r.Run-1]++
			case r.Pass:
				m.FalsePass++
			default:
				m.FalseFail++
			}
		}
		// Only complete runs count towards the shares; a run cut short by
		// an error would understate them.
		complete := runs
		if rep.Cases > 0 && len(rep.Results) < 2*rep.Cases*runs {
			complete = runs - 1
		}
		for i := range complete {
			pass[i] /= float64(rep.Cases)
			agree[i] /= float64(rep.Cases)
		}
		m.PassRate = spreadOf(pass[:max(complete, 0)])
		m.Agreement = spreadOf(agree[:max(complete, 0)])
		if mode == Isolated {
			rep.Isolated = m
		} else {
			rep.Transcript = m
		}
	}
}
