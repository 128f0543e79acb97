package lifecycle_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
	f.cfg.ContextWindow, f.cfg.MaxSteps, f.cfg.LoopLimit = window, 30, -1
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
