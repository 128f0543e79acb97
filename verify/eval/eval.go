package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/verify"
)

// Config configures an eval. Zero values mean the defaults.
type Config struct {
	// Judge is the model under test, already wrapped by the retry layer.
	// Required.
	Judge llm.Model
	// JudgeModel is sent as the requests' model name; default the
	// provider's default.
	JudgeModel string
	// Runs is how many times every case is judged in each condition;
	// default 1. With more, the report gives the spread across runs.
	Runs int
	// MaxFileBytes and MaxTokens are passed to verify.Judge; defaults
	// verify.DefaultJudgeMaxFileBytes and verify.DefaultJudgeMaxTokens.
	MaxFileBytes int
	MaxTokens    int
	// Progress, if set, is called after every judge call, in order.
	Progress func(Result)
}

// Mode is a condition under which the judge is asked.
type Mode string

const (
	// Isolated shows the judge the task, the answer and the files: what
	// verify.Judge sends during a run.
	Isolated Mode = "isolated"
	// Transcript shows the same prompt plus the transcript of the run.
	Transcript Mode = "transcript"
)

// Modes lists the conditions in report order.
var Modes = []Mode{Isolated, Transcript}

// Result is one judge verdict on one case.
type Result struct {
	Case string
	// Run counts from 1.
	Run  int
	Mode Mode
	// Pass is the judge's verdict; Reason its stated reason.
	Pass   bool
	Reason string
	// NoVerdict is true when the judge's replies held no verdict at all
	// (verify.NoVerdict: a run fails such a result, since silence is not
	// consent). It is counted apart from the FAILs: a judge that cannot
	// answer in the format is not a strict judge.
	NoVerdict bool
	// Agree reports whether the verdict matches the case's expectation;
	// never for no verdict.
	Agree bool
}

// Verdict names the verdict as the report prints it: PASS, FAIL or NO
// VERDICT.
func (r Result) Verdict() string {
	switch {
	case r.NoVerdict:
		return "NO VERDICT"
	case r.Pass:
		return "PASS"
	}
	return "FAIL"
}

// Run judges every case Runs times in both conditions, and runs the cases'
// checks once. It returns the report so far with an error when a judge
// call fails (after the caller's retries) or ctx ends.
func Run(ctx context.Context, cfg Config, cases []Case) (*Report, error) {
	if cfg.Judge == nil {
		return nil, errors.New("eval: no judge model")
	}
	runs := max(cfg.Runs, 1)
	judge := &verify.Judge{Model: cfg.Judge, ModelName: cfg.JudgeModel, MaxFileBytes: cfg.MaxFileBytes, MaxTokens: cfg.MaxTokens}
	tmp, err := os.MkdirTemp("", "nightshift-eval-")
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer os.RemoveAll(tmp)

	rep := &Report{Model: cfg.JudgeModel, Runs: runs, Cases: len(cases)}
	inputs := make([]verify.Input, len(cases))
	decided := make([]string, len(cases)) // the rule that would decide, or ""
	for i := range cases {
		c := &cases[i]
		if c.ExpectPass() {
			rep.ExpectedPass++
		}
		if inputs[i], err = materialise(filepath.Join(tmp, fmt.Sprint(i)), c); err != nil {
			return nil, fmt.Errorf("eval: case %q: %w", c.Name, err)
		}
		decided[i] = rep.Rules.add(ctx, c, inputs[i])
	}
	for run := 1; run <= runs; run++ {
		for i := range cases {
			c := &cases[i]
			for _, mode := range Modes {
				judge.Rubric = c.Rubric
				var v verify.Verdict
				var u llm.Usage
				if mode == Isolated {
					v, u, err = judge.Judge(ctx, inputs[i])
				} else {
					v, u, err = judge.JudgeWithTranscript(ctx, inputs[i], c.Transcript)
				}
				rep.Usage = rep.Usage.Add(u)
				if err != nil {
					rep.finish()
					return rep, fmt.Errorf("eval: case %q (%s, run %d): %w", c.Name, mode, run, err)
				}
				none := noVerdict(v)
				r := Result{Case: c.Name, Run: run, Mode: mode, Pass: v.Pass, Reason: v.Reason, NoVerdict: none, Agree: !none && v.Pass == c.ExpectPass()}
				rep.Results = append(rep.Results, r)
				if mode == Isolated {
					rep.countDecision(decided[i], v.Pass)
				}
				if cfg.Progress != nil {
					cfg.Progress(r)
				}
			}
		}
	}
	rep.finish()
	return rep, nil
}

// noVerdict reports whether the judge gave no verdict: the FAIL the judge
// makes of replies that held none.
func noVerdict(v verify.Verdict) bool {
	return !v.Pass && len(v.Failures) == 1 && v.Failures[0].Check == "judge" && v.Failures[0].Message == verify.NoVerdict
}

// materialise writes a case's files into a fresh workspace, so that the
// judge reads them exactly as it reads a real run's.
func materialise(dir string, c *Case) (verify.Input, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return verify.Input{}, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return verify.Input{}, err
	}
	defer root.Close()
	in := verify.Input{Task: c.Task, Answer: c.Answer, Dir: dir}
	for _, f := range c.Files {
		in.Changed = append(in.Changed, filepath.ToSlash(filepath.Clean(f.Path)))
		if f.Deleted {
			continue
		}
		if d := filepath.Dir(f.Path); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return verify.Input{}, err
			}
		}
		if err := root.WriteFile(f.Path, []byte(f.Content), 0o644); err != nil {
			return verify.Input{}, err
		}
	}
	return in, nil
}
