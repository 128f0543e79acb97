package agent_test

import (
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/tool"
)

// Regression (issue 25): a tool event keeps 80 characters of the call's
// input on its line and 200 in its input field, cut before the redactor
// in front of the sinks saw them: the part of a key before the cut was
// matched by nothing. The event is made from the input the tool set's
// redactor has been through.
func TestAToolEventCutsTheInputOnlyOnceItIsRedacted(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Zq9xW3vB7nK2", 20)
	for _, at := range []int{60, 180} { // the line's cut, the field's
		t.Run("", func(t *testing.T) {
			path := strings.Repeat("p", at-len(`{"path":"`)) + key
			f := setup(t, `
turns:
  - tool_calls: [{name: read_file, input: {path: "`+path+`"}}]
  - text: Done.
`, nil)
			f.cfg.Tools.SetConfig(tool.Config{Redact: func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }})
			if res := agent.Run(t.Context(), f.cfg, "read it"); res.Outcome != agent.Done {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
			}
			for _, e := range f.events.Events() {
				if e.Type != "tool" {
					continue
				}
				for what, text := range map[string]string{"line": e.Line(), "input": e.Data["input"].(string)} {
					if strings.Contains(text, key[:5]) {
						t.Errorf("the event's %s holds the start of the key: %s", what, text)
					}
				}
			}
		})
	}
}
