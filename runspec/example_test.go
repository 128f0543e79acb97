package runspec_test

import (
	"fmt"

	"github.com/nightshift-dev/nightshift/runspec"
)

// A task file's keys decode into a Spec; Validate names a bad value as
// the flag and the key, and In adds the file and the line it was
// written on.
func Example() {
	file := []byte("max_steps: 12\nchecks: exists:docs/install.md\nbudget_usd: -1\n")
	var spec runspec.Spec
	if err := runspec.DecodeYAML(file, &spec); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.MaxSteps, spec.Checks)
	err := spec.Validate()
	fmt.Println(err)
	fmt.Println(runspec.In(err, runspec.FromTaskFile, "task.yaml", runspec.KeyLines(file)))
	// Output:
	// 12 [exists:docs/install.md]
	// --budget-usd (task file: budget_usd) must not be negative, got -1
	// task.yaml: budget_usd must not be negative, got -1 (line 3)
}

// Every option is a row of one table: its flag, its task-file key, its
// pipeline-role key, its default.
func ExampleByField() {
	o, _ := runspec.ByField("MaxCallsPerReply")
	fmt.Printf("--%s, %s, roles.builder.%s, default %s\n", o.Flag, o.Key, o.RoleKey, o.Default)
	// Output:
	// --max-calls-per-reply, max_calls_per_reply, roles.builder.max_calls_per_reply, default 64
}
