// Package command is the run_command tool: it runs `sh -c COMMAND` with the
// workspace as its working directory, in a sandbox (package sandbox), under
// a timeout that kills the command and everything it started, and hands
// back the combined output, bounded to its last bytes and clearly marked
// when cut, with the exit status.
//
// run_command is class danger: the gate asks a person before it runs (the
// default policy is danger=ask), and the journal snapshots the workspace
// first so that what the command changes is rolled back with the rest of
// the run. Under bubblewrap (--sandbox bwrap, or auto where it works) the
// command can change only the workspace, sees no credentials and has no
// network; under --sandbox none it has the user's rights, and only its
// working directory, its environment and its lifetime are confined.
//
//	sb, err := sandbox.New(sandbox.Config{Dir: "/path/to/workspace"})
//	t := command.New(command.Config{Dir: "/path/to/workspace", Sandbox: sb})
//	res := t.Run(ctx, json.RawMessage(`{"command":"go test ./..."}`))
//	fmt.Println(res.Content) // output, then "[exit status 0]"
package command
