// Package sandbox starts the commands a run executes (run_command, and the
// verifier's cmd: checks) and makes sure none of them outlives the run.
//
// Three modes, chosen by --sandbox:
//
//   - bwrap: the command runs under bubblewrap (the Debian package
//     bubblewrap): the workspace is read-write, everything else read-only,
//     every .git in the workspace read-only (nested repositories and
//     submodules too, found again for each command), nightshift's state
//     and the usual credential folders (~/.ssh, ~/.aws, ~/.gnupg, ~/.netrc, ~/.config/gh,
//     ~/.config/gcloud, ...) replaced by empty ones, /tmp and /run private,
//     no network unless Config.Net, no capabilities, and its own PID
//     namespace, so it sees no process of ours (nor /proc/<our pid>) and
//     dies with us.
//   - none: no confinement at all (the command has the user's rights), but
//     the same lifetime rules: a parent-death signal, its own session, and
//     its own PID namespace where the kernel allows one, so that nothing it
//     started survives the command or nightshift.
//   - auto (the default): bwrap when it is installed and works here
//     (probed once per process), else none with a warning.
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
package sandbox
