package report

import (
	"strings"
	"testing"
)

// Regression (issue 11): a parked action is what a model asked to run; on
// a terminal, \r and ESC in it could hide the real command behind a
// harmless one. The text report shows them escaped.
func TestAParkedActionIsShownEscaped(t *testing.T) {
	r := &Report{Needs: Needs{Parked: []ParkedAction{{Task: 7, Title: "booklet", Status: Waiting,
		Action: `run_command {"command":"rm -f important.txt #` + "\r\x1b[2K" + `$ ls -la"}`}}}}
	var b strings.Builder
	if err := r.Text(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\r\x1b") || !strings.Contains(out, `rm -f important.txt #\r\x1b[2K$ ls -la`) {
		t.Errorf("report:\n%q", out)
	}
}
