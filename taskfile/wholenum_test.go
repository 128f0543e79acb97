package taskfile

import (
	"strings"
	"testing"
)

// Regression (issue 15 review): a number with a fraction for an integer
// key was read with its fraction dropped (`context_window: 0.5` as 0,
// which is no compaction at all), in a task file and in a list of tasks.
// It is an error naming the key and the line.
func TestAFractionForAnIntegerKeyIsAnError(t *testing.T) {
	if _, err := Parse([]byte("task: hi\ncontext_window: 1.5\n")); err == nil ||
		!strings.Contains(err.Error(), "line 2: context_window: 1.5 is not a whole number") {
		t.Errorf("a task file: %v", err)
	}
	for _, list := range []string{
		"- task: a\n- task: b\n  max_steps: 2.5\n",
		"tasks:\n  - task: a\n  - {task: b, max_steps: 2.5}\n",
	} {
		if _, err := parseYAMLList([]byte(list)); err == nil || !strings.Contains(err.Error(), "max_steps: 2.5 is not a whole number") {
			t.Errorf("%q: %v", list, err)
		}
	}
	if s, err := Parse([]byte("task: hi\nmax_steps: 4.0\n")); err != nil || s.MaxSteps != 4 {
		t.Errorf("a whole number written with a point: %v, %+v", err, s)
	}
}
