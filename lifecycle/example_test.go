package lifecycle_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/verify"
)

// A program that embeds a run: the real file tools and run_command, a run
// spec with a gate rule, a check and the scripted model. The worker rewrites notes.md,
// is refused a command by the gate, and claims it is done; the check
// measures 3 characters where 40 were asked, so the run ends unverified,
// and the workspace is put back as it was without a line of code for it.
func Example() {
	dir, _ := os.MkdirTemp("", "lifecycle-example-")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("old notes\n"), 0o644)

	sc, _ := scripted.Parse([]byte(`
turns:
  - tool_calls: [{name: write_file, input: {path: notes.md, content: "new"}}]
  - tool_calls: [{name: run_command, input: {command: "rm -rf ."}}]
  - text: Rewrote notes.md.
`))
	// The run's options, as a task file or the flags would give them.
	spec := &runspec.Spec{
		Gate:   runspec.Gate{Approve: runspec.List{"run_command=deny"}},
		Verify: runspec.Verify{MaxVerifyRounds: -1}, // the first FAIL ends the run
	}
	res, err := lifecycle.Run(context.Background(), lifecycle.Config{
		Spec:     spec,
		Dir:      dir,
		Model:    scripted.New(sc, scripted.Config{}),
		Verifier: &verify.Verifier{Rules: []verify.Rule{verify.MinChars("notes.md", 40)}},
	}, "Rewrite notes.md in at least 40 characters.")
	if err != nil {
		log.Fatal(err) // the run could not begin: nothing ran
	}
	notes, _ := os.ReadFile(filepath.Join(dir, "notes.md"))
	fmt.Println(res.Outcome, res.FailedChecks, "rolled back:", res.Rollback.Restored)
	fmt.Printf("notes.md: %q\n", notes)
	// Output:
	// unverified [min-chars] rolled back: [notes.md]
	// notes.md: "old notes\n"
}
