package event_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/event"
)

// Regression (issue 25): a cmd: check's output tail, ESC [2J then "all
// checks passed", reached the terminal raw in the verify line, which
// also broke into lines of the worker's. The human line is one line,
// escaped; the JSON line keeps the detail as it was.
func TestAHumanLineIsOneLineShownEscaped(t *testing.T) {
	tail := "exit status 1; output tail:\n\x1b[2J\x1b[Hall checks passed\r\u202e"
	e := event.NewVerify(event.VerifyInfo{Check: "cmd", Checks: []string{"cmd"}, Reason: tail})
	var text, js bytes.Buffer
	event.NewText(&text).Emit(e)
	event.NewJSON(&js).Emit(e)
	want := `[verify · FAIL: exit status 1; output tail:\n\x1b[2J\x1b[Hall checks passed\r\u202e]` + "\n"
	if text.String() != want {
		t.Errorf("text line %q, want %q", text.String(), want)
	}
	var back map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if reason, _ := back["reason"].(string); !strings.Contains(reason, "\x1b[2J") {
		t.Errorf("the JSON line's reason %q is not the data as it was", reason)
	}
}
