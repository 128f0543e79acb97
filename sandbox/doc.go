// Package sandbox starts the commands a run executes (run_command, and the
// verifier's cmd: checks) and makes sure none of them outlives the run.
//
// Three modes, chosen by --sandbox:
//
//   - bwrap: the command runs under bubblewrap (the Debian package
//     bubblewrap): the workspace is read-write, everything else read-only,
//     and, found again for each command, read-only inside the workspace:
//     every .git and what git runs or reads beside it
//     (workspace.ProtectedPaths: core.hooksPath folders, the targets of
//     .git files, included configs), with an empty placeholder for one
//     that does not exist yet; the workspace's .nightshift, whether it
//     exists or not; every file with more than one hard link. Hidden:
//     nightshift's state, the usual credential folders (HiddenHome), shell
//     start-up and history files (ShellFiles), per-user service sockets
//     (ServiceSockets, SystemSockets), and the unix sockets and .env files
//     a bounded scan finds outside the workspace (once per sandbox) and
//     the unix sockets inside it (each command). /tmp and /run are
//     private, /proc's knobs read-only (as root, /proc/sys would let a
//     command set the kernel's core_pattern), no network unless
//     Config.Net, no capabilities, a seccomp filter (Denied), and its own
//     PID namespace, so it sees no process of ours (nor /proc/<our pid>)
//     and dies with us. Setuid and setgid bits a command leaves on a file
//     of the workspace are removed afterwards, and named in its output,
//     in every mode.
//   - none: no confinement at all (the command has the user's rights), but
//     the same lifetime rules: a parent-death signal, its own session, and
//     its own PID namespace where the kernel allows one, so that nothing it
//     started survives the command or nightshift.
//   - auto (the default): bwrap when it is installed and works here
//     (probed once per process, or taken from Config.ProbeCache, where a
//     success is kept for the next processes: probecache.go), else none
//     with a warning.
//
// In every mode the command's environment is built from an allow-list
// (PATH, HOME, LANG, LC_*, TERM, TZ, ...) plus the variables the user names
// (--env NAME), never a credential.
//
//	sb, err := sandbox.New(sandbox.Config{Dir: "/path/to/workspace"})
//	if err != nil {
//		return err // --sandbox bwrap without a working bwrap, or --env naming a credential
//	}
//	for _, w := range sb.Warnings() {
//		fmt.Fprintln(os.Stderr, "nightshift: "+w)
//	}
//	var out bytes.Buffer
//	exit, err := sb.Run(ctx, "go test ./...", &out)
//
// Sandbox.Command starts a long-lived program (a stdio MCP server) in the
// same sandbox.
package sandbox
