package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
)

var (
	//go:embed demo/mechanics.yaml
	demoMechanics string
	//go:embed demo/install.yaml
	demoInstall string
	//go:embed demo/post.yaml.tmpl
	demoPostTmpl string
)

// demoReadme is the project the demo's workers read.
const demoReadme = `# tinytool

A command-line word counter.

## Install

1. git clone https://example.com/tinytool.git
2. cd tinytool
3. make
4. sudo make install
5. tinytool --version
`

// scene is one scripted run of the demo.
type scene struct {
	title    string
	task     string
	scenario string
	files    map[string]string
	checks   []string
	noJudge  bool
}

func demoScenes() []scene {
	return []scene{
		{
			title:    "mechanical failures: a 429 retried after its wait, an invented tool answered with an error",
			task:     "Summarise README.md in three lines into notes/summary.md.",
			scenario: demoMechanics,
			files:    map[string]string{"README.md": demoReadme},
			checks:   []string{"exists:notes/summary.md"},
			noJudge:  true,
		},
		{
			title:    "the confident half-finished job: the judge bounces 3 of 5 steps",
			task:     "Extract the install steps from README.md into docs/install.md — it must include all 5 steps.",
			scenario: demoInstall,
			files:    map[string]string{"README.md": demoReadme},
		},
		{
			title:    "the self-reported count, no rule written: the claims check counts what the model never did",
			task:     "Write a post about agent failures into post.md, at least 4000 characters.",
			scenario: demoPost(),
		},
		{
			title:    "the same count with a min-chars rule: the rule and the claims check state the same 3,341",
			task:     "Write a post about agent failures into post.md, at least 4000 characters.",
			scenario: demoPost(),
			checks:   []string{"min-chars:post.md:4000"},
		},
	}
}

// demoPost fills the post scenes with a Chinese post of exactly 3,341
// characters, then one of 4,210.
func demoPost() string {
	short, long := chinesePost(3341), chinesePost(4210)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	// Three fields put in by name, not by text/template: a binary that
	// can execute a template keeps every exported method it links
	// (issue 23, item 10).
	return strings.NewReplacer("{{.Short}}", q(short), "{{.Long}}", q(long), "{{.LongCount}}", "4210").Replace(demoPostTmpl)
}

// chinesePost returns a text of exactly n Unicode code points.
func chinesePost(n int) string {
	const para = "在智能体的世界里，错误是排好班的日常工作。模型会自信地宣布完成，而工作其实只做了一半。\n"
	var b strings.Builder
	for len([]rune(b.String())) < n {
		b.WriteString(para)
	}
	return string([]rune(b.String())[:n])
}

func newDemoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Play scripted sessions that show the failures nightshift handles (no key, no network)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), humanOut(cmd), cmd.ErrOrStderr(), time.Second)
		},
	}
}

// runDemo plays every scene in a temporary folder. backoff is the first
// retry wait (tests pass a millisecond).
func runDemo(ctx context.Context, stdout, stderr io.Writer, backoff time.Duration) error {
	tmp, err := os.MkdirTemp("", "nightshift-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var failed []string
	for i, sc := range demoScenes() {
		if ctx.Err() != nil {
			return demoInterrupted(stderr)
		}
		fmt.Fprintf(stderr, "\n== scene %d: %s ==\n$ nightshift run %q\n", i+1, sc.title, sc.task)
		res, err := playScene(ctx, filepath.Join(tmp, fmt.Sprint(i+1)), sc, stdout, stderr, backoff)
		if ctx.Err() != nil || (res != nil && res.Outcome == agent.Interrupted) {
			return demoInterrupted(stderr)
		}
		if err != nil {
			return err
		}
		if res.Outcome != agent.Done {
			failed = append(failed, fmt.Sprintf("scene %d ended %s", i+1, res.Outcome))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("demo: %s", strings.Join(failed, "; "))
	}
	fmt.Fprintln(stderr, "\nnightshift demo: every scene ended done. Its workspaces, run records and state were in a temporary folder, now removed;\n"+
		"a run of yours keeps its record in the state directory, and its last line names it. Next: README.md, then `nightshift run --help`.")
	return nil
}

// demoInterrupted ends a demo stopped by Ctrl-C or SIGTERM: the scenes
// left are not played and it exits 130, as every command does on a
// signal. Its runs were in a temporary folder the demo removes, so there
// is nothing to resume or undo (issue 23: the next scenes started, and it
// printed resume and undo commands for a folder it then deleted).
func demoInterrupted(stderr io.Writer) error {
	fmt.Fprintln(stderr, "\nnightshift demo: interrupted; the scenes left were not played, and its temporary folder is removed.")
	return exitWith(exitFor(agent.Interrupted))
}

func playScene(ctx context.Context, dir string, sc scene, stdout, stderr io.Writer, backoff time.Duration) (*agent.Result, error) {
	work := filepath.Join(dir, "work")
	for name, content := range sc.files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	scenario := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(scenario, []byte(sc.scenario), 0o644); err != nil {
		return nil, err
	}
	// The demo's state stays with its throwaway workspace, beside it.
	f := &runFlags{dir: work, stateDir: filepath.Join(dir, "state")}
	retries := 3
	spec := &taskfile.Spec{Task: sc.task, BaseDir: dir}
	spec.Provider, spec.Scenario = "scripted", scenario
	spec.Backoff, spec.RetryBudget = runspec.Duration(backoff), runspec.Duration(retry.DefaultBudget)
	var never runspec.Duration // the scripted model neither streams nor hangs
	spec.Stall, spec.CallTimeout = &never, &never
	spec.Checks, spec.NoJudge = sc.checks, sc.noJudge
	spec.MaxSteps, spec.MaxTokens, spec.MaxVerifyRounds, spec.Retries = agent.DefaultMaxSteps, agent.DefaultMaxTokens, agent.DefaultMaxVerifyRounds, &retries
	// An interrupted scene is rolled back, not paused: its folder is
	// removed when the demo ends, so there is nothing to resume.
	spec.RollbackOnInterrupt = true
	cfg, err := runConfig(f, spec, limitersFor(f.stateDir, &spec.Spec))
	if err != nil {
		return nil, err
	}
	cfg.Dir, cfg.Events = work, event.NewText(stderr)
	res, err := lifecycle.Run(ctx, cfg, sc.task)
	if err != nil {
		return nil, notStarted(err, work, f.stateDir)
	}
	if res.Answer != "" {
		fmt.Fprintln(stdout, res.Answer)
	}
	// The record is in the demo's temporary folder, removed when the demo
	// ends: a line naming it would point at nothing.
	shown := *res
	shown.RecordPath = ""
	// Nor can a paused scene be resumed or undone: its folder goes too.
	shown.Suspended = false
	printEnd(&shown, f.stateDir, stderr)
	return &res.Result, nil
}
