package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/journal"
	"github.com/nightshift-dev/nightshift/workspace"
)

// newRecoverCmd is `nightshift recover --dir DIR`: restore the state
// before a run that died midway (kill -9, power loss), from its journal.
func newRecoverCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "recover --dir DIR",
		Short: "Restore a workspace after a run died midway",
		Long: `Recover restores every file a dead run changed to its state before the run,
from the journal in DIR/.nightshift/journal: changed files back, created files
removed, deleted files restored. A file that something else changed meanwhile
is reported and left as it is. Exit 0 when restored or when there was nothing
to do.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return usagef("--dir %s: not a folder", dir)
			}
			root, err := workspace.Open(dir)
			if err != nil {
				return usagef("--dir %s: %v", dir, err)
			}
			defer root.Close()
			pending, err := journal.Pending(root.StateDir())
			if err != nil {
				return err
			}
			out := cmd.ErrOrStderr()
			if len(pending) == 0 {
				fmt.Fprintf(out, "nightshift: nothing to recover in %s\n", root.Dir())
				return nil
			}
			rep, err := journal.Recover(root.Dir(), root.StateDir())
			if err != nil {
				return fmt.Errorf("recover: %w (the journal is kept; fix the cause and run recover again)", err)
			}
			fmt.Fprintf(out, "nightshift: recovered %s from the journal of %d dead run(s): %d restored, %d removed, %d recreated\n",
				root.Dir(), len(pending), len(rep.Restored), len(rep.Removed), len(rep.Recreated))
			for _, c := range rep.Conflicts {
				fmt.Fprintf(out, "nightshift: left as it is (changed by something else): %s\n", c)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", ".", "the workspace to restore")
	return cmd
}
