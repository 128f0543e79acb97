package scripted

import (
	"os"
	"reflect"
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

// TestEveryScenarioKeyIsDocumented: each key a scenario file may hold is
// named in docs/scenarios.md, the local server's included.
func TestEveryScenarioKeyIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Skipf("docs not found: %v", err)
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[Scenario](), reflect.TypeFor[Script](), reflect.TypeFor[Turn](), reflect.TypeFor[Case](),
		reflect.TypeFor[Reply](), reflect.TypeFor[ToolCall](), reflect.TypeFor[Usage](), reflect.TypeFor[ErrorBody](),
		reflect.TypeFor[Match](), reflect.TypeFor[LocalServer](),
	} {
		for f := range typ.Fields() {
			key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if key == "" || key == "-" {
				continue
			}
			if !strings.Contains(string(doc), "`"+key) && !strings.Contains(string(doc), " "+key+": ") {
				t.Errorf("%s.%s: the key %q is not in docs/scenarios.md", typ.Name(), f.Name, key)
			}
		}
	}
}
