package encoded

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

// BenchmarkAppendHistory measures a call at step 200 of an agent's run:
// 400 messages, every one sent before, so that what is measured is the
// check that each is unchanged and, building the body whole, the copying
// of its kept encoding (whole), or, over the body built before, nothing
// more (kept).
//
//	go test ./llm/internal/encoded -run '^$' -bench AppendHistory
func BenchmarkAppendHistory(b *testing.B) {
	var msgs []llm.Message
	for i := range 200 {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.ToolUse(id, "recall", json.RawMessage(fmt.Sprintf(`{"path":"notes/n%d.md"}`, i)))}},
			llm.Message{Role: llm.User, Content: []llm.Block{llm.ToolResult(id, strings.Repeat("x", 200), false)}})
	}
	enc := func(m *llm.Message, _ int) ([]byte, error) { return json.Marshal(m) }
	b.Run("whole", func(b *testing.B) {
		c := New(0)
		buf, err := c.Append(nil, ',', msgs, plain, enc)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			if buf, err = c.Append(buf[:0], ',', msgs, plain, enc); err != nil {
				b.Fatal(err)
			}
		}
	})
	// As the providers build a body: over the one built before.
	b.Run("kept", func(b *testing.B) {
		c := New(0)
		buf, stamp, err := c.AppendTo([]byte("{"), 0, ',', msgs, plain, enc)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			if buf, stamp, err = c.AppendTo(append(buf[:0], '{'), stamp, ',', msgs, plain, enc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
