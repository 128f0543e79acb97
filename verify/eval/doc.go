// Package eval measures the judge itself. Each case holds a task, the
// worker's final answer, the files it changed, the transcript that led
// there, and the verdict a careful person would give. Run asks the judge
// twice per case: isolated, exactly as verify.Judge asks during a run, and
// shown the transcript as well. The report gives, for both conditions, the
// PASS rate and the agreement with the expected verdicts, with their spread
// over several runs. It is how a user checks, on their own model, the
// finding of seed 000 (section 4.3): a judge shown the process goes soft.
//
// Cases may also carry rules (verify.ParseRule specs). The report counts
// which check would have decided each FAIL, rule or judge, which is the
// seed's homework: see which catches more.
//
//	cases, err := eval.LoadCases("cases.yaml")
//	if err != nil {
//		return err
//	}
//	rep, err := eval.Run(ctx, eval.Config{Judge: model, JudgeModel: "claude-sonnet-4-5", Runs: 3}, cases)
//	if err != nil {
//		return err
//	}
//	rep.WriteText(os.Stdout)
//
// The case format is documented in docs/eval.md; DefaultCases is a set of
// twelve, half of them half-finished work.
package eval
