package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/statedir"
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
	// `nightshift --version` is what many type first: the same line as
	// `nightshift version`. It is the flag cobra adds for a Version, with
	// its words, but printed here: cobra prints a version through
	// text/template, and a binary that can execute a template keeps every
	// exported method of every type it links (the linker cannot tell
	// which a template names), 40 MB of code and pages a run touches
	// (issue 23, item 10). The root runs nothing, so cobra shows its help
	// for `nightshift --version`, and the help says the version.
	root.Flags().BoolP("version", "v", false, "version for nightshift")
	_ = root.Flags().SetAnnotation("version", cobra.FlagSetByCobraAnnotation, []string{"true"}) // as cobra's: no completions after it
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == root && flagSet(c, "version") && !flagSet(c, "help") {
			fmt.Fprintln(dataOut(c), buildVersion())
			return
		}
		help(c, args)
	})
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Cobra reports flag errors itself; make them usage errors (exit 2).
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// `task approve -1` reads -1 as flags: say it is no task ID (it
		// was "unknown shorthand flag: '1' in -1").
		if m := negativeArg.FindStringSubmatch(err.Error()); m != nil && strings.HasPrefix(c.CommandPath(), "nightshift task ") {
			return usagef("%s is not a task ID: IDs are the positive numbers nightshift task list shows", m[1])
		}
		if m := unknownFlag.FindStringSubmatch(err.Error()); m != nil && c.CommandPath() == "nightshift night" && pipelineKeys[m[1]] != "" {
			return usagef("--%s is run's flag; a night takes it from its pipeline file: %s (docs/night.md)", m[1], pipelineKeys[m[1]])
		}
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
	// Cobra adds its help and completion commands only when it executes,
	// so that Find, which run calls before, knew neither: `nightshift
	// help` and `nightshift completion bash`, both listed by --help, were
	// "unknown command" (issue 23). Add them here, with the rest.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	setExamples(root)
	usageArgs(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		// First: the build a PostgreSQL ledger is handed to checks the
		// rest itself.
		if err := toPostgresBuild(cmd.Context(), ledgerOfCommand(cmd)); err != nil {
			return err
		}
		if fl := cmd.Flags().Lookup("state-dir"); fl != nil {
			return checkStateBase(fl.Value.String())
		}
		return nil
	}
	return root
}

// unknownFlag matches pflag's error for a long flag it does not know.
var unknownFlag = lazyregexp.New(`^unknown flag: --([a-z-]+)$`)

// pipelineKeys are the pipeline's keys for run's flags of long runs
// (README, "Long runs") that a newcomer gives `nightshift night`.
var pipelineKeys = map[string]string{
	"no-cache":       "no_cache: true",
	"fallback-model": "roles.<role>.fallback: a model under models",
	"fallback-on":    "roles.<role>.fallback_on: quota",
	"context-window": "a model's context window is the model table's: models_file: FILE with context_window rows (docs/budgets.md)",
}

// negativeArg matches pflag's error for a negative number given where a
// flag could be: "unknown shorthand flag: '1' in -1".
var negativeArg = lazyregexp.New(`unknown shorthand flag: '\d' in (-\d+)$`)

// checkStateBase refuses, before anything runs, a state directory that
// cannot be one: the path, or a folder on the way to it, is a file (a
// mistyped --state-dir or $NIGHTSHIFT_STATE_DIR). Found later, it was
// "statedir: mkdir …: not a directory", exit 1, after the run had begun,
// and in a batch every task failed with it.
func checkStateBase(flag string) error {
	base, err := statedir.Base(flag)
	if err != nil {
		return usageError(err)
	}
	from := "--state-dir"
	if flag == "" {
		from = "$" + statedir.Env
		if os.Getenv(statedir.Env) == "" {
			from = "the default state directory"
		}
	}
	for p := base; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			if !fi.IsDir() {
				return usagef("state directory %s (%s): %s is not a folder: point --state-dir or $%s at a folder, or at a path to create", base, from, p, statedir.Env)
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			// A name too long, a folder that cannot be entered: it was
			// "statedir: mkdir …" (exit 1) once the run had begun.
			return usagef("state directory %s (%s): %v: point --state-dir or $%s at another folder", base, from, errors.Unwrap(err), statedir.Env)
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
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

// flagSet says whether c's bool flag name was given true.
func flagSet(c *cobra.Command, name string) bool {
	on, err := c.Flags().GetBool(name)
	return err == nil && on
}
