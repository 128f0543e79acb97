package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/verify/claims/claimeval"
	"github.com/nightshift-dev/nightshift/verify/eval"
)

// newEvalCmd is `nightshift eval [CASES]`: the judge measured on the
// user's own model, with the provider flags of run.
func newEvalCmd() *cobra.Command {
	var f modelSpec
	var retries int
	var backoff time.Duration
	cmd := eval.NewCmd(func(cmd *cobra.Command, spec string) (llm.Model, string, error) {
		// --model is the old name of --judge-model: the judge is the only
		// model eval uses.
		if f.ModelName != "" {
			if spec != "" && spec != f.ModelName {
				return nil, "", usagef("--model is the old name of --judge-model: give the judge once, as --judge-model %s", spec)
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "nightshift: --model is deprecated for eval: use --judge-model MODEL or PROVIDER:MODEL")
			spec, f.ModelName = f.ModelName, ""
		}
		if f.Provider == "" && spec == "" && osGetenv("ANTHROPIC_API_KEY") == "" && osGetenv("OPENAI_API_KEY") == "" {
			return nil, "", usagef("eval needs a judge model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --provider scripted --scenario verify/eval/testdata/judge.yaml")
		}
		m, name, err := f.build(osGetenv)
		if err != nil {
			return nil, "", err
		}
		if spec != "" {
			if m, name, err = f.judgeModel(spec, m, name, osGetenv); err != nil {
				return nil, "", usageError(err)
			}
		}
		// The judge's calls take the path of every model call: the
		// policy (--retries 0 is none), retries reported nowhere but in
		// the error, since eval prints its own table.
		calls := lifecycle.Calls{Retry: retry.Policy{Retries: retry.Count(retries), Backoff: backoff}}
		return calls.Model(m, nil, ""), name, nil
	})
	fl := cmd.Flags()
	fl.StringVar(&f.Provider, "provider", "", "anthropic|openai|scripted (default: from the keys set)")
	fl.StringVar(&f.ModelName, "model", "", "the judge model: the old name of --judge-model")
	// Hidden, and the notice printed by hand: cobra's deprecation notice
	// would go to stdout, which carries the report.
	fl.MarkHidden("model") //nolint:errcheck // the flag exists: just defined
	fl.StringVar(&f.BaseURL, "base-url", "", "provider base URL")
	fl.StringVar(&f.Scenario, "scenario", "", "scenario file for --provider scripted")
	fl.BoolVar(&f.Stream, "stream", false, "use the provider's streaming API")
	fl.IntVar(&retries, "retries", retry.DefaultRetries, "retries per judge call after the first")
	fl.DurationVar(&backoff, "backoff", time.Second, "first retry wait")
	cmd.AddCommand(newEvalClaimsCmd(), newEvalReliabilityCmd())
	// The eval package marks the user's mistakes with ErrUsage: exit 2.
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 1 {
			if err := checkInputFile("the case file", args[0], "the format is in docs/eval.md"); err != nil {
				return err
			}
		}
		err := run(c, args)
		if errors.Is(err, eval.ErrUsage) {
			return usageError(err)
		}
		return err
	}
	return cmd
}

// newEvalClaimsCmd is `nightshift eval claims [CASES]`: the claims check
// measured on the shipped cases or the user's, no model.
func newEvalClaimsCmd() *cobra.Command {
	cmd := claimeval.NewCmd()
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 1 {
			if err := checkInputFile("the case file", args[0], "the format is in docs/eval.md"); err != nil {
				return err
			}
		}
		err := run(c, args)
		if errors.Is(err, claimeval.ErrUsage) {
			return usageError(err)
		}
		return err
	}
	return cmd
}
