package main

import (
	"errors"
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
		newBatchCmd(),
		newDemoCmd(),
		newSimCmd(),
		newEvalCmd(),
		newRecoverCmd(),
		newNightCmd(),
		newTaskCmd(),
		newReportCmd(),
		newVersionCmd(),
	)
	usageArgs(root)
	return root
}

// usageArgs makes cobra's argument errors (`nightshift demo extra`)
// usage errors, exit 2, like its flag errors: nothing was run.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ee *exitError
			if err == nil || errors.As(err, &ee) {
				return err
			}
			return usagef("%v (see %s --help)", err, cmd.CommandPath())
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}
