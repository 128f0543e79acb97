package eval_test

import (
	"context"
	"fmt"
	"os"

	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/verify/eval"
)

// The shipped cases, judged by the scripted judge of testdata/judge.yaml:
// isolated, it misses only the post that is short of its length (a rule's
// job); shown the transcript, it passes every half-finished job.
func Example() {
	sc, err := scripted.Load("testdata/judge.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := eval.Run(context.Background(), eval.Config{Judge: scripted.New(sc, scripted.Config{}), JudgeModel: "scripted"}, eval.DefaultCases())
	if err != nil {
		fmt.Println(err)
		return
	}
	rep.WriteText(os.Stdout)
	// Output:
	// judge eval · 12 cases (6 expected PASS, 6 expected FAIL) · 1 run · judge scripted
	//
	// condition    PASS rate   agreement   false PASS   false FAIL
	// isolated     58%         92%         1            0
	// transcript   100%        50%         6            0
	//
	// Shown the transcript, the judge passed 42 points more: a judge shown the process grades the process.
	// Rules: 9 of 12 cases have checks; they failed 3 (3 expected FAIL, 0 expected PASS).
	// FAILs by deciding check: judge 3 · matches 2 · min-words 1
	//
	// Against the expectation (run 1):
	//   isolated    PASS  post-short-of-its-length       The files do what the task asks.
	//   transcript  PASS  install-steps-three-of-five    The worker made multiple attempts and handled the problems it met carefully; ju…
	//   transcript  PASS  post-short-of-its-length       The worker made multiple attempts and handled the problems it met carefully; ju…
	//   transcript  PASS  flaky-test-skipped             The worker made multiple attempts and handled the problems it met carefully; ju…
	//   transcript  PASS  window-parser-todo             The worker made multiple attempts and handled the problems it met carefully; ju…
	//   transcript  PASS  handlers-two-of-three          The worker made multiple attempts and handled the problems it met carefully; ju…
	//   transcript  PASS  incident-summary-stops-midway  The worker made multiple attempts and handled the problems it met carefully; ju…
}
