package lifecycle_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm"
)

// TestTwoResultsCutUnderOneToolUseIDAreBothKept is a regression test: a
// server that numbers its tool calls per reply (the in-process scripted
// model, some OpenAI-compatible servers) gives two replies' calls the
// same ID, and the second cut result was kept under the first's name,
// so read_result returned the second file for the first note: the first
// result was lost. Each cut is kept under an ID of its own, and its note
// names that ID.
func TestTwoResultsCutUnderOneToolUseIDAreBothKept(t *testing.T) {
	a := "AAAA" + strings.Repeat("first file ", 600)
	b := "BBBB" + strings.Repeat("second file ", 600)
	f := setup(t, `
turns:
  - tool_calls: [{id: same, name: read_file, input: {path: a.txt}}]
  - tool_calls: [{id: same, name: read_file, input: {path: b.txt}}]
  - tool_calls: [{id: r1, name: read_result, input: {id: same}}]
  - tool_calls: [{id: r2, name: read_result, input: {id: same-2}}]
  - text: "Read them both."
`)
	for name, body := range map[string]string{"a.txt": a, "b.txt": b} {
		if err := os.WriteFile(filepath.Join(f.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var last *llm.Request
	inner := f.cfg.Model
	f.cfg.Model = llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		last = req
		return inner.Generate(ctx, req)
	})
	f.cfg.ResultCap, f.cfg.Spec.LoopLimit = 2000, ptr(-1)
	res := f.run(t)
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	msgs := last.Messages
	if n := len(msgs); n < 9 {
		t.Fatalf("%d messages", n)
	}
	if note := msgs[4].Content[0].Text; !strings.Contains(note, `read_result {"id": "same-2"`) {
		t.Errorf("the second cut's note names no ID of its own:\n%s", note)
	}
	if got := msgs[6].Content[0].Text; !strings.HasPrefix(got, "AAAA") {
		t.Errorf("read_result {id: same} returned %.40q…, want the first file", got)
	}
	if got := msgs[8].Content[0].Text; !strings.HasPrefix(got, "BBBB") {
		t.Errorf("read_result {id: same-2} returned %.40q…, want the second file", got)
	}
	cuts := eventsOf(f.events, "cut")
	if len(cuts) != 2 || cuts[0].Data["id"] != "same" || cuts[1].Data["id"] != "same-2" {
		t.Errorf("cut events %v", cuts)
	}
}
