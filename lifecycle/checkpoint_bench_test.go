package lifecycle

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/budget"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// conversation is a run's conversation after steps tool steps, each a
// read_file reply and its 20 KB result.
func conversation(steps int) []llm.Message {
	result := strings.Repeat("0123456789abcdef\n", 20*1024/17)
	msgs := []llm.Message{llm.UserText("Summarise every file of the project.")}
	for i := 1; i <= steps; i++ {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse(id, "read_file", []byte(fmt.Sprintf(`{"path":"src/file%03d.go"}`, i)))}},
			llm.Message{Role: llm.User, Content: []llm.Block{llm.ToolResult(id, result, false)}})
	}
	return msgs
}

// BenchmarkCheckpointStep measures what the checkpoint costs a step: the
// record of one step (its reply and its 20 KB tool result, and the loop's
// state) appended to the log and fsynced, at step 10 and at step 200. The
// cost must not grow with the conversation: nothing is rewritten whole.
func BenchmarkCheckpointStep(b *testing.B) {
	for _, step := range []int{10, 200} {
		b.Run(fmt.Sprintf("step=%d/result=20KB", step), func(b *testing.B) {
			dir := b.TempDir()
			log, err := createLog(dir, record{Op: "begin", Run: "bench", Task: "bench"}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer log.close()
			c := &checkpointer{dir: dir, run: "bench", log: log, events: event.Discard, clock: clock.NewFake(time.Time{})}
			msgs := conversation(step)
			st := &agent.State{Messages: msgs, Steps: step, MaxTokens: 4096,
				Spent:   budget.Spend{Usage: llm.Usage{InputTokens: int64(step) * 6000, OutputTokens: int64(step) * 50}},
				Changed: []string{"notes.md"}}
			// The steps before this one are in the log already.
			if err := c.Save(&agent.State{Messages: msgs[:len(msgs)-2], Steps: step - 1}); err != nil {
				b.Fatal(err)
			}
			var bytes int64
			b.ResetTimer()
			for b.Loop() {
				c.written = len(msgs) - 2 // this step's reply and result are new
				before := log.bytes
				if err := c.Save(st); err != nil {
					b.Fatal(err)
				}
				bytes += log.bytes - before
			}
			b.ReportMetric(float64(bytes)/float64(b.N), "B/step")
		})
	}
}
