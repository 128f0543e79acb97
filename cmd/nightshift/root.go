package main

import (
	"io"

	"github.com/spf13/cobra"
)

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "nightshift",
		Short: "Run LLM agents unattended; make their failures routine, scheduled work",
		Long: `nightshift runs an agent loop — a model call, tool calls, again — and ends every
run in exactly one recorded outcome: retries for wrong timing, is_error results
for tool failures, a step brake, and a verifier the worker does not control.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Cobra reports flag errors itself; make them usage errors (exit 2).
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%v (see %s --help)", err, c.CommandPath())
	})
	root.AddCommand(
		newRunCmd(),
		newDemoCmd(),
		newSimCmd(),
		newEvalCmd(),
		newRecoverCmd(),
		newNightCmd(),
		newTaskCmd(),
		newReportCmd(),
	)
	return root
}
