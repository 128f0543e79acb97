package fs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/tool"
	"github.com/nightshift-dev/nightshift/tool/fs"
	"github.com/nightshift-dev/nightshift/workspace"
)

// The file tools answer every call with a result for the model, whether
// it worked or not.
func Example() {
	dir, _ := os.MkdirTemp("", "nightshift-example")
	defer os.RemoveAll(dir)
	root, _ := workspace.Open(dir)
	defer root.Close()
	set, _ := tool.NewSet(fs.Tools(root)...)

	ctx := context.Background()
	for _, c := range []struct{ name, input string }{
		{"write_file", `{"path":"docs/plan.md","content":"1. draft\n2. review\n"}`},
		{"write_file", `{"path":"docs/plan.md","content":"1. draft\n2. review\n"}`},
		{"edit_file", `{"path":"docs/plan.md","old":"2. review","new":"2. review\n3. ship"}`},
		{"edit_file", `{"path":"docs/plan.md","old":"2. review","new":"2. review\n3. ship"}`},
		{"read_file", `{"path":"../etc/passwd"}`},
		{"search_file", `{"query":"plan"}`},
		{"list_dir", `{"path":"docs"}`},
	} {
		res := set.Call(ctx, c.name, json.RawMessage(c.input))
		fmt.Printf("%v %s\n", res.IsError, res.Content)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "docs", "plan.md"))
	fmt.Printf("%q %v\n", b, root.Changed())
	// Output:
	// false created docs/plan.md (19 bytes)
	// false unchanged: docs/plan.md already has this content (19 bytes)
	// false edited docs/plan.md at line 2
	// false already applied: docs/plan.md contains the new text and not the old; nothing changed
	// true path "../etc/passwd" leaves the workspace; give a path inside it, relative to its root
	// true unknown tool "search_file"; the tools are: edit_file, list_dir, read_file, write_file
	// false plan.md  27 bytes
	// "1. draft\n2. review\n3. ship\n" [docs/plan.md]
}
