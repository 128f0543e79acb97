package lifecycle_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm"
)

// TestACompactionThatCannotShrinkTheHistoryIsNotMade is a regression
// test: in a window so small that the task, the summary's frame and the
// latest step alone pass it, a compaction was made anyway, a model call
// that left the prompt bigger than before (`[compact · ~1050 → ~1110
// tokens of 1100]`), and made again a few steps later. A compaction is
// made only when the history it leaves, before any summary is written,
// is smaller than the one it replaces.
func TestACompactionThatCannotShrinkTheHistoryIsNotMade(t *testing.T) {
	for _, window := range []int{600, 1100, 1300} {
		t.Run(fmt.Sprint(window), func(t *testing.T) { compactionShrinks(t, window) })
	}
}

func compactionShrinks(t *testing.T, window int) {
	f := setup(t, `
loop: true
scripts:
  - name: summary
    when: {in: last, contains: "about to outgrow"}
    turns: [{text: "SUMMARY: listing."}]
  - name: worker
    turns: [{tool_calls: [{name: list_dir, input: {path: "."}}]}]
`)
	summaries := 0
	inner := f.cfg.Model
	f.cfg.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if strings.Contains(req.Messages[len(req.Messages)-1].Text(), "about to outgrow") {
			summaries++
		}
		return inner.Generate(ctx, req)
	})
	f.cfg.Spec.ContextWindow, f.cfg.Spec.MaxSteps, f.cfg.Spec.LoopLimit = window, 30, ptr(-1)
	f.run(t)
	compacts := eventsOf(f.events, "compact")
	for _, c := range compacts {
		if num(c.Data["after_tokens"]) >= num(c.Data["before_tokens"]) {
			t.Errorf("a compaction left the prompt no smaller: %v", c.Data)
		}
	}
	if summaries != len(compacts) {
		t.Errorf("%d summary calls for %d compactions", summaries, len(compacts))
	}
}

// TestASummaryCallRefusedAsTooLongStillCompacts is a regression test:
// when the summary's own call was refused as a bad request (the history
// had already outgrown the model's window: the estimate fell short, or
// the window was set too big), the run ended api-failure, the very end
// compaction is there to prevent. The history is compacted without a
// summary (the task and the changed files stand in), the compact event
// says why, and the run goes on.
func TestASummaryCallRefusedAsTooLongStillCompacts(t *testing.T) {
	yaml := strings.Replace(summaryScenario,
		`turns: [{text: "SUMMARY-7Q: big.txt was read 4 times; nothing is left to do but answer."}]`,
		`turns: [{status: 400, error: {message: "prompt is too long: 210000 tokens > 200000 maximum"}}]`, 1)
	f := setup(t, yaml)
	bigFile(t, f.dir)
	f.cfg.Spec.ContextWindow, f.cfg.ResultCap, f.cfg.Spec.MaxSteps, f.cfg.Spec.LoopLimit = 4000, 1<<20, 30, ptr(-1)
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	compacts := eventsOf(f.events, "compact")
	if len(compacts) != 1 {
		t.Fatalf("%d compact events, want 1", len(compacts))
	}
	c := compacts[0]
	if c.Data["summary"] != "mechanical" || !strings.Contains(fmt.Sprint(c.Data["error"]), "prompt is too long") ||
		!strings.Contains(c.Detail, "prompt is too long") {
		t.Errorf("compact event %q %v", c.Detail, c.Data)
	}
}

// TestARunCompactsAtItsFallbacksSmallerWindow: with a fallback whose
// window is smaller than its worker's (or the worker's unknown), a run
// compacts at the fallback's, so that a call the fallback takes still
// fits it.
func TestARunCompactsAtItsFallbacksSmallerWindow(t *testing.T) {
	for _, worker := range []int{0, 1 << 20} {
		t.Run(fmt.Sprint(worker), func(t *testing.T) {
			f := setup(t, summaryScenario)
			bigFile(t, f.dir)
			f.cfg.Spec.ContextWindow, f.cfg.ResultCap, f.cfg.Spec.MaxSteps, f.cfg.Spec.LoopLimit = worker, 1<<20, 30, ptr(-1)
			f.cfg.Fallback = &agent.Fallback{Model: llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
				t.Error("the fallback was called")
				return nil, context.Canceled
			}), ModelName: "small", ContextWindow: 4000}
			res := f.run(t)
			if res.Outcome != agent.Done {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
			}
			compacts := eventsOf(f.events, "compact")
			if len(compacts) != 1 || num(compacts[0].Data["window"]) != 4000 {
				var data []map[string]any
				for _, c := range compacts {
					data = append(data, c.Data)
				}
				t.Fatalf("compact events %v, want one at the fallback's window (4000)", data)
			}
		})
	}
}
