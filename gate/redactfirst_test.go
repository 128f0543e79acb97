package gate

import (
	"strings"
	"testing"
)

// recorded is an Auditor that keeps the entries.
type recorded []Entry

func (r *recorded) Record(e Entry) error { *r = append(*r, e); return nil }

// Regression (issue 25): the audit log's summary of a call was cut to
// 200 characters before the redactor saw it, and the part of a key
// before the cut was matched by nothing. The summary is made from the
// redacted input; the preview a person approves is the call's own.
func TestTheAuditSummaryIsRedactedBeforeItIsCut(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Zq9xW3vB7nK2", 8)
	redact := func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }
	var audit recorded
	asker := &answering{answer: Yes}
	g := New(Config{Asker: asker, Audit: &audit, Redact: redact})

	line := "echo " + strings.Repeat("a", maxSummary-len("run_command: echo ")-30) + key
	if _, err := g.Check(t.Context(), command(line)); err != nil {
		t.Fatal(err)
	}
	if sum := audit[0].Input; strings.Contains(sum, key[:5]) || !strings.Contains(sum, "[redacted]") {
		t.Errorf("the audit summary %q holds the start of the key", sum)
	}
	if pre := asker.asked[0].Preview; !strings.Contains(pre, key) {
		t.Errorf("the preview %q is not the call's own", pre)
	}
}
