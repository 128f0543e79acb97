package event_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// notRunEvents are the files that still spell an event's Type outside
// this package, and why: their lines are not a run's events (they are
// not in docs/events.md and never reach an --events file).
var notRunEvents = map[string]string{
	"night/scheduler.go": "the night's own lines on stderr ([night · …], [step · …])",
	"verify/eval/cmd.go": "nightshift eval's [eval · …] lines",
}

// TestEveryEmitterUsesTheConstructors: outside package event, no code
// builds an event.Event with a Type of its own; a run's events come from
// the constructors, so that their fields and lines are the documented
// ones (issue 17).
func TestEveryEmitterUsesTheConstructors(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "event" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || notRunEvents[rel] != "" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := lit.Type.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Event" {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "event" {
				return true
			}
			for _, el := range lit.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Type" {
						t.Errorf("%s: builds an event.Event with its own Type; use the type's constructor in package event", fset.Position(lit.Pos()))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
