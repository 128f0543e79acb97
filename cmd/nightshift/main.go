package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/terminal"
)

func main() {
	os.Exit(Main())
}

// Main runs the CLI with the process's arguments and streams and returns
// the exit status. Only here do errors become exit codes.
//
// The first SIGINT or SIGTERM cancels the command's context: it stops,
// records what it was doing (a run suspends or rolls back, a night records
// its running steps interrupted) and exits 130. A second one exits at
// once, for a person who will not wait: what was left half done is as
// after a crash, which the journal and the ledger recover from.
func Main() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	// A console whose reader went away (`nightshift run ... 2>&1 | head
	// -1`) does not stop the work: with SIGPIPE asked for, Go makes a
	// write to a closed stdout or stderr fail with EPIPE instead of
	// killing the process, the lines are lost, and a run goes on to its
	// end, its record and its exit status. Killed, it stopped half done.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go onSignals(sigs, cancel, terminal.Writer(os.Stderr), os.Exit)
	return exitCode(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr)
}

// onSignals cancels the command at the first signal and exits 130 at the
// second.
func onSignals(sigs <-chan os.Signal, cancel func(), stderr io.Writer, exit func(int)) {
	if _, ok := <-sigs; !ok {
		return
	}
	cancel()
	if _, ok := <-sigs; ok {
		fmt.Fprintln(stderr, "nightshift: second signal: exiting at once")
		exit(exitFor(agent.Interrupted))
	}
}

// run builds the command tree and executes it. Everything it writes, and
// the error it returns, passes through one redactor of the credentials in
// the environment and of the passwords of the URLs in args (--db
// postgres://user:pw@host/db, a --base-url with a user part): a key never
// reaches stdout, stderr or an error message as it is (commands add the
// secrets they learn later, such as the keys a pipeline names).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	red := redact.FromEnv(nil)
	red.Learn(args...)
	ctx = withRedactor(ctx, red)
	// stderr is all for people: everything written there is escaped
	// for a terminal (after it is redacted, so that the redactor sees
	// the text as it was). stdout's writes say what they are (output.go).
	root := newRootCmd(stdin, red.Writer(stdout), red.Writer(terminal.Writer(stderr)))
	root.SetArgs(args)
	// Cobra adds its help and completion commands only when it executes,
	// so that Find below, which runs before, knew neither: `nightshift
	// help` and `nightshift completion bash`, both listed by --help, were
	// "unknown command" (issue 23). Add them first.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	// Cobra reports an unknown command as a plain error; it is a usage
	// error (exit 2): nothing was run.
	if _, _, err := root.Find(args); err != nil {
		return red.Error(usagef("%v (see nightshift --help)", err))
	}
	return red.Error(root.ExecuteContext(ctx))
}

// exitCode maps an error onto the process exit status, printing it unless
// the command already told the user. The message may quote what a worker
// wrote (a file's name, a command's output): it is escaped for a
// terminal as all of stderr is.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	stderr = terminal.Writer(stderr)
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && !ee.quiet {
			fmt.Fprintf(stderr, "nightshift: %v\n", ee.err)
		}
		return ee.code
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "nightshift: interrupted")
		return exitFor(agent.Interrupted)
	}
	fmt.Fprintf(stderr, "nightshift: %v\n", err)
	return exitFor(agent.Failed)
}
