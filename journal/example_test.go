package journal_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/journal"
)

// A run overwrites a file and creates another, then ends in anything but
// done: Patch keeps what it attempted, Rollback puts the workspace back.
func Example() {
	root, _ := os.MkdirTemp("", "ws")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "notes.md"), []byte("old\n"), 0o644)

	state, _ := os.MkdirTemp("", "state") // outside the workspace
	defer os.RemoveAll(state)
	j, err := journal.Begin(root, state, "run-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	// What the workspace does for every change: Before, change, After.
	for _, name := range []string{"notes.md", "new.md"} {
		j.Before(name)
		os.WriteFile(filepath.Join(root, name), []byte("new\n"), 0o644)
		j.After(name)
	}
	patch, _ := j.Patch()
	report, _ := j.Rollback()
	fmt.Print(patch)
	fmt.Print(report)
	content, _ := os.ReadFile(filepath.Join(root, "notes.md"))
	fmt.Printf("notes.md: %q\n", content)
	// Output:
	// diff --git a/new.md b/new.md
	// new file mode 100644
	// --- /dev/null
	// +++ b/new.md
	// @@ -0,0 +1 @@
	// +new
	// diff --git a/notes.md b/notes.md
	// --- a/notes.md
	// +++ b/notes.md
	// @@ -1 +1 @@
	// -old
	// +new
	// restored   notes.md
	// removed    new.md
	// notes.md: "old\n"
}
