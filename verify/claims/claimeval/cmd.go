package claimeval

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/verify/claims"
)

// ErrUsage is wrapped by the errors of NewCmd's command that are the
// user's to fix (a bad case file, a bad flag value), so the CLI can exit
// with its usage status.
var ErrUsage = errors.New("usage")

type usageErr struct{ err error }

func (e usageErr) Error() string   { return e.err.Error() }
func (e usageErr) Unwrap() []error { return []error{e.err, ErrUsage} }

// NewCmd returns the `claims [CASES]` subcommand of eval, with the flag
// --about. Without CASES the shipped case set (DefaultCases) is checked.
// The report goes to stdout.
func NewCmd() *cobra.Command {
	var about float64
	cmd := &cobra.Command{
		Use:   "claims [flags] [CASES]",
		Short: "Measure the claims check: precision and recall per kind of claim, no model",
		Long: `Claims runs the claims check on each case, a final answer with the files and
commands of the run that ended with it, and compares what it finds with the
verdict a careful person gives each claim: true, false or unchecked. It
prints precision and recall per kind of claim (a file's counts, a file
written or deleted, a command run and passed, the answer's own count) and per
language, and the false FAILs on answers without a false claim. No model is
called. CASES is a YAML file (docs/eval.md); without it, the shipped cases
are checked.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr{fmt.Errorf("eval claims takes at most one CASES file, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if about < 0 || about >= 1 {
				return usageErr{fmt.Errorf("--about must be a fraction from 0 to 1, got %v", about)}
			}
			cases := DefaultCases()
			if len(args) == 1 {
				var err error
				if cases, err = LoadCases(args[0]); err != nil {
					return usageErr{err}
				}
			}
			rep, err := Run(cmd.Context(), claims.Config{About: about}, cases)
			if err != nil {
				return err
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().Float64Var(&about, "about", claims.DefaultAbout, "how far off an approximate figure may be, as a fraction")
	return cmd
}
