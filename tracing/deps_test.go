package tracing

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The packages whose registry, descriptors and reflection every
// nightshift process paid for, tracing on or off (issue 23, item 10).
var heavy = []string{"google.golang.org/protobuf", "go.opentelemetry.io/proto/otlp", "go.opentelemetry.io/otel/exporters/otlp", "google.golang.org/grpc"}

func isHeavy(path string) bool {
	for _, h := range heavy {
		if path == h || strings.HasPrefix(path, h+"/") {
			return true
		}
	}
	return false
}

// TestNightshiftLinksNoProtobuf keeps the start light: no non-test file
// of the module imports protobuf, the generated OTLP types or the SDK's
// OTLP exporters (test files may: they compare with them), and nothing
// the nightshift command links does.
func TestNightshiftLinksNoProtobuf(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); isHeavy(p) {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command for go list -deps")
	}
	out, err := exec.Command(goTool, "list", "-deps", "../cmd/nightshift").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for p := range strings.FieldsSeq(string(out)) {
		if isHeavy(p) {
			t.Errorf("the nightshift command links %s", p)
		}
	}
}
