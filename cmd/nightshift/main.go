package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/nightshift-dev/nightshift/agent"
	_ "github.com/nightshift-dev/nightshift/internal/mainstack" // before the packages it precedes are initialised: its doc
	"github.com/nightshift-dev/nightshift/internal/terminal"
	"github.com/nightshift-dev/nightshift/redact"
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
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	// A console whose reader went away (`nightshift run ... 2>&1 | head
	// -1`) does not stop the work: with SIGPIPE asked for, Go makes a
	// write to a closed stdout or stderr fail with EPIPE instead of
	// killing the process, the lines are lost, and a run goes on to its
	// end, its record and its exit status. Killed, it stopped half done.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go onSignals(sigs, func(cause error) {
		cancel(cause)
		signalCancelled()
	}, terminal.Writer(os.Stderr), os.Exit)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	return exitStatus(ctx, err, os.Stderr)
}

// cancelledBySignal is closed once the first signal has cancelled the
// command's context: a crash point the tests stall at waits on it, so
// that the work goes on only once it can see that it was stopped.
var (
	cancelledBySignal = make(chan struct{})
	signalCancelled   = sync.OnceFunc(func() { close(cancelledBySignal) })
)

// onSignals cancels the command at the first signal, with an
// *interrupted as the cause, and exits 130 at the second.
func onSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc, stderr io.Writer, exit func(int)) {
	sig, ok := <-sigs
	if !ok {
		return
	}
	cancel(&interrupted{sig})
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
	ctx = withArgs(withRedactor(ctx, red), args)
	// stderr is all for people: everything written there is escaped
	// for a terminal (after it is redacted, so that the redactor sees
	// the text as it was). stdout's writes say what they are (output.go).
	root := newRootCmd(stdin, red.Writer(stdout), red.Writer(terminal.Writer(stderr)))
	root.SetArgs(args)
	// Cobra reports an unknown command as a plain error; it is a usage
	// error (exit 2): nothing was run.
	if _, _, err := root.Find(args); err != nil {
		return red.Error(usagef("%v (see nightshift --help)", err))
	}
	return red.Error(root.ExecuteContext(ctx))
}

// interrupted is the cause of the command's context when a signal
// cancelled it.
type interrupted struct{ sig os.Signal }

func (e *interrupted) Error() string { return "interrupted by " + signalName(e.sig) }

// signalName is the signal's usual name: SIGINT, SIGTERM.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// exitStatus is the exit status of a command that returned err. It is
// the one place that turns a signal into 130: every command stops on its
// context and records what it must, but what it returns then differs (a
// server returns nil, a judge call "context canceled", a batch the
// status of its tasks); after SIGINT or SIGTERM the status is 130,
// interrupted, whatever it was (DESIGN.md, the exit table). An error that
// is not the interruption itself (a record that could not be written) is
// still printed; a command that said nothing about the interruption gets
// one line saying it.
func exitStatus(ctx context.Context, err error, stderr io.Writer) int {
	var sig *interrupted
	if !errors.As(context.Cause(ctx), &sig) {
		return exitCode(err, stderr)
	}
	code := exitFor(agent.Interrupted)
	var ee *exitError
	switch {
	case errors.As(err, &ee) && ee.code == code:
		exitCode(err, stderr) // as the command meant it
	case errors.As(err, &ee) && (ee.quiet || ee.err == nil):
		fmt.Fprintf(terminal.Writer(stderr), "nightshift: %v\n", sig)
	case err != nil && !errors.Is(err, context.Canceled):
		exitCode(err, stderr) // printed; its status is the signal's
		fmt.Fprintf(terminal.Writer(stderr), "nightshift: %v\n", sig)
	default:
		fmt.Fprintf(terminal.Writer(stderr), "nightshift: %v\n", sig)
	}
	return code
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
