package main

import (
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
	var discard bool
	cmd := &cobra.Command{
		Use:   "recover --dir DIR [--state-dir STATE] [--discard]",
		Short: "Undo a run that died midway or paused",
		Long: `Recover restores every file a dead or paused run changed to its state before
the run (a paused run, stopped by its budget, its time limit or Ctrl-C, can
instead go on with nightshift run --resume RUN),
from the run's journal in the state directory (STATE/ws/<key>/journal, outside
the workspace; or DIR/.nightshift/journal, where earlier versions kept it):
changed files back, created files removed, deleted files and folders restored
with their modes. A file that something else changed meanwhile is reported and
left as it is. Recover can be interrupted and run again.

It refuses while a run, or a command a run started, is still alive in the
workspace, and names its PID. A damaged journal is applied as far as it goes
and kept: recover says what is damaged, what it restored and what it could
not. --discard drops the dead runs' journals without applying them, once you
have looked.

Exit status: 0 restored, or nothing to do; 7 something is alive, or a journal
is damaged and kept; 2 usage; 1 anything else.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRecover(cmd.ErrOrStderr(), dir, stateDir, discard)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "the workspace to restore")
	cmd.Flags().BoolVar(&discard, "discard", false, "drop the dead runs' journals without applying them (after a damaged journal was reported)")
	stateDirFlag(cmd, &stateDir)
	return cmd
}

func runRecover(out io.Writer, dir, stateDir string, discard bool) error {
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
	rep, err := journal.Recover(abs, state)
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
	if len(rep.Runs) == 0 && err == nil {
		fmt.Fprintf(out, "nightshift: nothing to recover in %s\n", esc(abs))
		return nil
	}
	// Each path is a name a run could have made: escaped onto its line.
	for _, d := range rep.Damaged {
		fmt.Fprintf(out, "nightshift: DAMAGED: %s\n", esc(d))
	}
	fmt.Fprintf(out, "nightshift: recovered %s from the journal of %d dead or paused run(s): %d restored, %d removed, %d recreated\n",
		esc(abs), len(rep.Runs), len(rep.Restored), len(rep.Removed), len(rep.Recreated))
	for _, c := range rep.Conflicts {
		fmt.Fprintf(out, "nightshift: left as it is (changed by something else): %s\n", esc(c))
	}
	for _, c := range rep.Failed {
		fmt.Fprintf(out, "nightshift: NOT RESTORED: %s\n", esc(c))
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
