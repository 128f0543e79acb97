package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
)

// flood is one reply of n write_file calls, each to its own file.
func flood(n int) string {
	var b strings.Builder
	b.WriteString("turns:\n  - tool_calls:\n")
	for i := range n {
		fmt.Fprintf(&b, "      - {name: write_file, input: {path: f%02d.txt, content: x}}\n", i)
	}
	b.WriteString("  - text: done\n")
	return b.String()
}

// TestTheCallsOfOneReplyPastTheCapAreAnsweredNotRun is issue 25's
// per-reply cap: of a reply with 40 calls and a cap of 8, the first 8 run
// and the other 32 are answered with an is_error result saying why; the
// model reads them all in one message.
func TestTheCallsOfOneReplyPastTheCapAreAnsweredNotRun(t *testing.T) {
	f := setup(t, flood(40), nil)
	f.cfg.Spec.MaxCallsPerReply = 8
	res := agent.Run(context.Background(), f.cfg, "write the files")
	if res.Outcome != agent.Done {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	}
	written, _ := filepath.Glob(filepath.Join(f.dir, "f*.txt"))
	if len(written) != 8 {
		t.Errorf("%d files written, want the cap's 8", len(written))
	}
	if _, err := os.Stat(filepath.Join(f.dir, "f08.txt")); !os.IsNotExist(err) {
		t.Errorf("the 9th call ran (%v)", err)
	}
	reqs := f.model.requests()
	results := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if len(results) != 40 {
		t.Fatalf("%d results, want one per call", len(results))
	}
	for i, b := range results {
		capped := strings.Contains(b.Text, "at most 8 of one reply run (--max-calls-per-reply)")
		if (i >= 8) != (capped && b.IsError) {
			t.Errorf("result %d: %q (error %v)", i, b.Text, b.IsError)
		}
	}
}

// TestTheDefaultCallCapIs64AndNegativeIsNone: zero is the default cap
// (64), a negative cap none.
func TestTheDefaultCallCapIs64AndNegativeIsNone(t *testing.T) {
	for _, c := range []struct {
		cap, want int
	}{{0, 64}, {-1, 70}} {
		f := setup(t, flood(70), nil)
		f.cfg.Spec.MaxCallsPerReply = c.cap
		agent.Run(context.Background(), f.cfg, "write the files")
		if written, _ := filepath.Glob(filepath.Join(f.dir, "f*.txt")); len(written) != c.want {
			t.Errorf("cap %d: %d files written, want %d", c.cap, len(written), c.want)
		}
	}
}
