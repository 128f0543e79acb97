// Package command is the run_command tool: it runs `sh -c COMMAND` with the
// workspace as its working directory, under a timeout that kills the whole
// process group, and hands back the combined output, bounded to its last
// bytes and clearly marked when cut, with the exit status.
//
// run_command is class danger: the gate asks a person before it runs (the
// default policy is danger=ask), and the journal snapshots the workspace
// first so that what the command changes is rolled back with the rest of
// the run. It is not a sandbox: the command runs with the user's rights and
// can reach anything the user can. Only the working directory is confined.
//
//	t := command.New(command.Config{Dir: "/path/to/workspace"})
//	res := t.Run(ctx, json.RawMessage(`{"command":"go test ./..."}`))
//	fmt.Println(res.Content) // output, then "[exit status 0]"
package command
