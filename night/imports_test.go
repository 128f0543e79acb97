package night_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNightImportsNoConcreteProvider: the night builds its models
// through the one registry (llm/provider), as `nightshift run` does, and
// imports no provider itself (issue 24).
func TestNightImportsNoConcreteProvider(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, p := range []string{"/llm/anthropic", "/llm/openai", "/llm/scripted"} {
				if strings.HasSuffix(path, p) {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
}
