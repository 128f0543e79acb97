package workspace_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/nightshift-dev/nightshift/workspace"
)

// A guard sees every change before it happens and can stop it; the
// journal that makes rollback possible plugs in the same way.
func ExampleRoot_SetGuard() {
	dir, _ := os.MkdirTemp("", "nightshift-example")
	defer os.RemoveAll(dir)
	r, _ := workspace.Open(dir)
	defer r.Close()

	r.SetGuard(func(rel string) error {
		fmt.Println("before", rel)
		if rel == "secrets.env" {
			return errors.New("not this one")
		}
		return nil
	})
	r.SetAfter(func(rel string) { fmt.Println("after", rel) })

	fmt.Println(r.WriteFile("notes/a.md", []byte("a\n"), 0o644))
	fmt.Println(r.WriteFile("secrets.env", []byte("x\n"), 0o600))
	fmt.Println(r.WriteFile(".nightshift/journal", []byte("x\n"), 0o600))
	fmt.Println(r.Changed())
	// Output:
	// before notes
	// before notes/a.md
	// before notes/.a.md.nightshift-tmp
	// after notes
	// after notes/a.md
	// <nil>
	// before secrets.env
	// change to secrets.env refused: not this one
	// path ".nightshift/journal" is in the state folder .nightshift, which tools may not touch
	// [notes/a.md]
}
