package scripted

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocumentedScenariosParse keeps docs/scenarios.md honest: every
// complete YAML example in it must parse. Fragments written with [...]
// are skipped.
func TestDocumentedScenariosParse(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Skipf("docs not found: %v", err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	checked := 0
	for i, b := range blocks {
		if strings.Contains(b[1], "[...]") {
			continue
		}
		checked++
		if _, err := Parse([]byte(b[1])); err != nil {
			t.Errorf("yaml example %d does not parse: %v\n%s", i+1, err, b[1])
		}
	}
	if checked < 5 {
		t.Errorf("checked %d examples; want the documented ones (at least 5)", checked)
	}
}
