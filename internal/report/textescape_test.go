package report

import (
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/ledger"
)

// A failure's reason comes from the worker (a command's output, a model's
// words): in the text report it stays on its line, escaped, so that it
// cannot forge a line ("Nothing needs a person.") or clear the screen
// (issue 25: every line nightshift writes to a terminal is escaped).
func TestAReasonInTheTextReportCannotForgeALine(t *testing.T) {
	var b strings.Builder
	failureLine(&b, ledger.Failure{Scope: "task", Rule: "failed-step", Task: 3, Worker: "b1",
		Reason: "boom\nNothing needs a person.\x1b[2J"}, "")
	out := b.String()
	if strings.Count(out, "\n") != 1 {
		t.Errorf("the reason broke its line:\n%s", out)
	}
	if strings.ContainsRune(out, '\x1b') {
		t.Errorf("an ESC reached the text: %q", out)
	}
	if !strings.Contains(out, `boom\nNothing needs a person.\x1b[2J`) {
		t.Errorf("the reason is not shown escaped: %q", out)
	}
	if got := reasonText("a\rb"); got != `: a\rb` {
		t.Errorf("reasonText = %q", got)
	}
}
