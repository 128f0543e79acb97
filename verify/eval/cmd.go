package eval

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// ErrUsage is wrapped by the errors of NewCmd's command that are the
// user's to fix (a bad case file, a bad flag value), so the CLI can exit
// with its usage status.
var ErrUsage = errors.New("usage")

type usageErr struct{ err error }

func (e usageErr) Error() string      { return e.err.Error() }
func (e usageErr) Unwrap() []error    { return []error{e.err, ErrUsage} }
func usagef(f string, a ...any) error { return usageErr{fmt.Errorf(f, a...)} }
func asUsage(err error) error         { return usageErr{err} }

// NewCmd returns the `eval [CASES]` subcommand, with the flags --runs and
// --judge-model. newJudge builds the judge model, already wrapped by the
// retry layer, from the --judge-model value ("" means the default model);
// it receives the command so that the caller's own provider flags, added
// to the returned command, can be read. Without CASES the shipped case set
// (DefaultCases) is judged. The report goes to stdout, one
// `[eval · ...]` line per verdict to stderr.
func NewCmd(newJudge func(cmd *cobra.Command, spec string) (llm.Model, string, error)) *cobra.Command {
	var runs int
	var judgeSpec string
	cmd := &cobra.Command{
		Use:   "eval [flags] [CASES]",
		Short: "Measure the judge: isolated, and shown the transcript",
		Long: `Eval asks the judge about each case twice: isolated, exactly as a run's
verifier asks, and shown the transcript that led to the result. It prints, for
both, the PASS rate and the agreement with the expected verdicts, and with
--runs N their spread. CASES is a YAML or JSON-lines file (docs/eval.md);
without it, the twelve shipped cases are judged.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("eval takes at most one CASES file, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if runs < 1 {
				return usagef("--runs must be 1 or more, got %d", runs)
			}
			cases := DefaultCases()
			if len(args) == 1 {
				var err error
				if cases, err = LoadCases(args[0]); err != nil {
					return asUsage(err)
				}
			}
			model, name, err := newJudge(cmd, judgeSpec)
			if err != nil {
				return err
			}
			sink := event.NewText(cmd.ErrOrStderr())
			rep, err := Run(cmd.Context(), Config{
				Judge:      model,
				JudgeModel: name,
				Runs:       runs,
				Progress: func(r Result) {
					sink.Emit(event.Event{Type: "eval", Detail: fmt.Sprintf("%s %s run=%d %s", r.Case, r.Mode, r.Run, r.Verdict())})
				},
			}, cases)
			if err != nil {
				return err
			}
			return rep.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().IntVar(&runs, "runs", 1, "judge every case N times in each condition, to see the spread")
	cmd.Flags().StringVar(&judgeSpec, "judge-model", "", "the judge: MODEL or PROVIDER:MODEL (default: the configured model)")
	return cmd
}
