package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/statedir"
)

// newRecoverCmd is `nightshift recover --dir DIR`: restore the state
// before a run that died midway (kill -9, power loss), from its journal.
func newRecoverCmd() *cobra.Command {
	var dir, stateDir string
	var discard, legacy bool
	cmd := &cobra.Command{
		Use:   "recover --dir DIR [--state-dir STATE] [--discard | --legacy]",
		Short: "Undo a run that died midway or paused",
		Long: `Recover restores every file a dead or paused run changed to its state before
the run (a paused run, stopped by its budget, its time limit, a provider
that stayed down (unavailable) or Ctrl-C, can instead go on with
nightshift run --resume RUN),
from the run's journal in the state directory (STATE/ws/<key>/journal, outside
the workspace, where no command a run starts can write): changed files back,
created files removed, deleted files and folders restored with their modes. A
file that something else changed meanwhile is reported and left as it is.
Nothing is ever written under a .git (nor a core.hooksPath folder, nor the
target of a .git file): git runs what is written there. Recover can be
interrupted and run again.

A journal in the workspace's own .nightshift/journal (where earlier versions
kept them, and where a run's command or a cloned repository could put one) is
never applied by itself: recover names it and lists what it would change;
--legacy applies it, when you have looked and it is yours.

It refuses while a run, or a command a run started, is still alive in the
workspace, and names its PID. A damaged journal is applied as far as it goes
and kept: recover says what is damaged, what it restored and what it could
not. --discard drops the dead runs' journals (and those in .nightshift/journal)
without applying them, once you have looked.

Exit status: 0 restored, or nothing to do; 7 something is alive, or a journal
is damaged and kept; 2 usage; 1 anything else.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if discard && legacy {
				return usagef("--discard drops the journals and --legacy applies them: give one of the two")
			}
			return runRecover(cmd.Context(), cmd.ErrOrStderr(), dir, stateDir, discard, legacy)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "the workspace to restore")
	cmd.Flags().BoolVar(&discard, "discard", false, "drop the dead runs' journals without applying them (after a damaged journal was reported)")
	cmd.Flags().BoolVar(&legacy, "legacy", false, "also apply the journals in the workspace's .nightshift/journal, which recover otherwise only lists (never under a .git)")
	stateDirFlag(cmd, &stateDir)
	return cmd
}

func runRecover(ctx context.Context, out io.Writer, dir, stateDir string, discard, legacy bool) error {
	if err := checkDir(dir); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return usagef("--dir %s: %v", dir, err)
	}
	base, err := statedir.Base(stateDir)
	if err != nil {
		return usageError(err)
	}
	// Not created: a workspace that never ran has nothing to recover.
	state, err := statedir.WorkspaceDir(base, abs)
	if err != nil {
		return usageError(err)
	}
	needsRecovery := exitFor(agent.NeedsRecovery)
	if discard {
		runs, err := journal.Discard(abs, state)
		if errors.Is(err, journal.ErrBusy) {
			return &exitError{code: needsRecovery, err: fmt.Errorf("not discarding in %s: %w", abs, err)}
		}
		if err != nil {
			return err
		}
		if err := lifecycle.ForgetEnded(state); err != nil {
			fmt.Fprintf(out, "nightshift: %s\n", esc(err))
		}
		if len(runs) == 0 {
			fmt.Fprintf(out, "nightshift: nothing to discard in %s\n", esc(abs))
			return nil
		}
		fmt.Fprintf(out, "nightshift: discarded the journal of run %s in %s; the workspace is left as it is\n", esc(strings.Join(runs, ", ")), esc(abs))
		return nil
	}
	rep, err := journal.RecoverContext(ctx, abs, state)
	if err == nil && legacy {
		var more journal.Report
		more, err = journal.RecoverLegacy(ctx, abs, state)
		rep.Merge(more)
	}
	var busy *journal.BusyError
	if errors.As(err, &busy) {
		return &exitError{code: needsRecovery, err: fmt.Errorf(
			"not recovering %s: %w\nwait for it to end (or stop it: kill %s), then run recover again", abs, err, pids(busy.PIDs()))}
	}
	if err == nil {
		// The runs undone cannot be resumed: their checkpoints go.
		if ferr := lifecycle.ForgetEnded(state); ferr != nil {
			fmt.Fprintf(out, "nightshift: %s\n", esc(ferr))
		}
	}
	if err != nil && ctx.Err() != nil {
		// Stopped midway by a signal: nothing is "recovered" yet. The
		// rollback kept its decision in the journal, so the same
		// command finishes it.
		fmt.Fprintf(out, "nightshift: recovery of %s interrupted: the workspace is partly restored; finish it with: nightshift recover --dir %s%s\n",
			esc(abs), esc(abs), stateArg(stateDir))
		return exitWith(exitFor(agent.Interrupted))
	}
	if len(rep.Runs) == 0 && err == nil {
		fmt.Fprintf(out, "nightshift: nothing to recover in %s\n", esc(abs))
	} else {
		printRecovered(out, abs, rep)
	}
	if !legacy && err == nil {
		if lerr := listLegacy(ctx, out, abs, state, stateDir); lerr != nil {
			fmt.Fprintf(out, "nightshift: %s\n", esc(lerr))
		}
	}
	var damaged *journal.DamagedError
	if errors.As(err, &damaged) {
		return &exitError{code: needsRecovery, err: fmt.Errorf(
			"%w\nwhat could be restored was; the saved contents are kept. Look at the workspace, then run recover again, or drop the journal with: nightshift recover --dir %s%s --discard",
			err, abs, stateArg(stateDir))}
	}
	if err != nil {
		return err
	}
	return nil
}

// printRecovered tells what a recovery did, path by path where something
// was left.
func printRecovered(out io.Writer, abs string, rep journal.Report) {
	for _, d := range rep.Damaged {
		fmt.Fprintf(out, "nightshift: DAMAGED: %s\n", esc(d))
	}
	fmt.Fprintf(out, "nightshift: recovered %s from the journal of %d dead or paused run(s): %d restored, %d removed, %d recreated\n",
		esc(abs), len(rep.Runs), len(rep.Restored), len(rep.Removed), len(rep.Recreated))
	for _, c := range rep.Conflicts {
		fmt.Fprintf(out, "nightshift: left as it is (changed by something else): %s\n", esc(c))
	}
	for _, c := range rep.Protected {
		fmt.Fprintf(out, "nightshift: left as it is (protected: git runs what is written there, and nightshift never writes it): %s\n", esc(c.Path))
	}
	for _, c := range rep.Failed {
		fmt.Fprintf(out, "nightshift: NOT RESTORED: %s\n", esc(c))
	}
}

// listLegacy names the journals an earlier version (or a run, or a cloned
// repository) left in the workspace's .nightshift/journal, with what
// applying them would change: recover never applies one unless asked.
func listLegacy(ctx context.Context, out io.Writer, abs, state, stateDir string) error {
	ls, err := journal.Legacy(ctx, abs, state)
	if err != nil || len(ls) == 0 {
		return err
	}
	applicable := false
	for _, l := range ls {
		if l.Refused != "" {
			fmt.Fprintf(out, "nightshift: NOT APPLIED, never: the journal %s: %s\n", esc(l.Dir), esc(l.Refused))
			continue
		}
		applicable = true
		w := l.Would
		fmt.Fprintf(out, "nightshift: NOT APPLIED: the journal %s lies in the workspace, where an earlier version of nightshift kept journals, and where a run's command or a cloned repository can write one: nightshift cannot tell who wrote it. Applied, it would restore %d, remove %d and recreate %d path(s):\n",
			esc(l.Dir), len(w.Restored), len(w.Removed), len(w.Recreated))
		for _, p := range w.Restored {
			fmt.Fprintf(out, "  restore   %s\n", esc(p))
		}
		for _, p := range w.Removed {
			fmt.Fprintf(out, "  remove    %s\n", esc(p))
		}
		for _, p := range w.Recreated {
			fmt.Fprintf(out, "  recreate  %s\n", esc(p))
		}
		for _, c := range w.Conflicts {
			fmt.Fprintf(out, "  leave     %s\n", esc(c))
		}
		for _, c := range w.Protected {
			fmt.Fprintf(out, "  never     %s (protected: git runs what is written there; never written)\n", esc(c.Path))
		}
	}
	if applicable {
		fmt.Fprintf(out, "nightshift: if it is yours, apply it with: nightshift recover --dir %s%s --legacy\n", esc(abs), esc(stateArg(stateDir)))
	}
	fmt.Fprintf(out, "nightshift: or drop it, changing nothing in the workspace: nightshift recover --dir %s%s --discard\n", esc(abs), esc(stateArg(stateDir)))
	return nil
}

func stateArg(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return " --state-dir " + stateDir
}

func pids(ps []int) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, " ")
}
