package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are every command's Examples, by command path: real
// invocations, one a line, each after a comment line that says what it
// does. They are kept here, in one table, so that TestEveryExampleRuns
// finds them all and fails for a command that has none; the files they
// name (project/, notes.md, task.yaml, tasks.yaml, s.yaml, pipeline.yaml,
// faults.yaml, night.db) are what that test sets up, as a reader would.
var examples = map[string]string{
	"nightshift": `
# a first look, no key and no network
nightshift demo
# a task in the current folder, with the model your key selects
nightshift run "Summarise notes.md into summary.md"`,

	"nightshift run": `
# a task in the current folder, with the model your key selects
nightshift run "Summarise notes.md into summary.md"
# no key: the scripted model plays a scenario, in the folder project
nightshift run --provider scripted --scenario s.yaml --dir project "Summarise notes.md"
# limits, a rule the answer is checked against, and no judge
nightshift run --dir project --max-steps 10 --budget-usd 0.50 --check min-words:notes.md:5 --no-judge "Summarise notes.md"
# the task and its options from a file (docs/many-runs.md)
nightshift run --task-file task.yaml
# go on with a paused run, with more budget (its ID is in its closing lines)
nightshift run --resume 20261130T190412Z-43dc9d3e --budget-usd 1`,

	"nightshift batch": `
# every task of the list, four at a time, under one rate limiter
nightshift batch --tasks tasks.yaml --parallel 4
# no key: the scripted model, the workspaces in out/
nightshift batch --tasks tasks.yaml --work out --provider scripted --scenario s.yaml --no-judge
# go on with an interrupted batch: the same --tasks and --work
nightshift batch --resume --tasks tasks.yaml --work out`,

	"nightshift demo": `
# four scripted scenes: a 429, a broken tool call, a false claim, a rule
nightshift demo`,

	"nightshift sim": `
# a scripted model as an HTTP server; its first stdout line is its URL
nightshift sim serve --scenario s.yaml
# a real provider behind faults
nightshift sim proxy --upstream https://api.anthropic.com --fault 429=0.1`,

	"nightshift sim serve": `
# serve a scenario on a free port until Ctrl-C
nightshift sim serve --scenario s.yaml
# behind a rate limit of 5 requests a second, answered 429 beyond it
nightshift sim serve --scenario s.yaml --limit 5 --per 1s
# replay a session recorded with sim proxy --record
nightshift sim serve --cassette session.jsonl`,

	"nightshift sim proxy": `
# Anthropic's API with a 429 on one request in ten and a cut reply in twenty
nightshift sim proxy --upstream https://api.anthropic.com --fault 429=0.1 --fault cut=0.05 --seed 7
# a schedule from a file, every exchange recorded for sim serve --cassette
nightshift sim proxy --upstream https://api.openai.com/v1 --faults faults.yaml --record session.jsonl`,

	"nightshift eval": `
# the judge measured on the shipped cases, with the model your key selects
nightshift eval
# another judge model, every case three times to see the spread
nightshift eval --judge-model claude-sonnet-5-5 --runs 3
# no key: a scripted judge (from a clone of the repository)
nightshift eval --provider scripted --scenario verify/eval/testdata/judge.yaml`,

	"nightshift eval claims": `
# the claims check on the shipped cases, no model
nightshift eval claims
# with "about" read as within a fifth
nightshift eval claims --about 0.2`,

	"nightshift eval reliability": `
# each task five times, clean and with faults, side by side
nightshift eval reliability --tasks tasks.yaml --runs 5 --fault 429=0.2 --fault cut=0.05
# no key: the scripted model, no faults, as JSON
nightshift eval reliability --tasks tasks.yaml --runs 2 --provider scripted --scenario s.yaml --json`,

	"nightshift recover": `
# undo a run that died midway or paused in the folder project
nightshift recover --dir project
# after a damaged journal was reported: drop it, leave the folder as it is
nightshift recover --dir project --discard`,

	"nightshift night": `
# a whole simulated night, no key, with its morning report as a page
nightshift night --demo
# tonight's night, as the pipeline says, and the report's page after it
nightshift night --pipeline pipeline.yaml --db night.db --html morning.html
# two step chains in this process, a step's lease of five minutes
nightshift night --pipeline pipeline.yaml --db night.db --workers 2 --lease 5m
# a week of nights on a simulated clock, from a date
nightshift night --pipeline pipeline.yaml --clock sim --nights 7 --from 2026-12-01`,

	"nightshift task": `
# the backlog, in the order the builder takes it
nightshift task list --db night.db
# a task for tonight
nightshift task add "Write the install guide" --score 8 --db night.db`,

	"nightshift task add": `
# a task with a score (higher goes first) and a body for the builder
nightshift task add "Write the install guide" --score 8 --body "docs/install.md, five steps" --db night.db`,

	"nightshift task list": `
# the backlog, in the order the builder takes it
nightshift task list --db night.db
# as JSON
nightshift task list --db night.db --json`,

	"nightshift task show": `
# task 1: its attempts, the latest verdict and the diff of its changes
nightshift task show 1 --db night.db
# as JSON
nightshift task show 1 --db night.db --json`,

	"nightshift task fail": `
# a failure you saw, charged to task 1 like any other
nightshift task fail 1 --reason "the build server is down" --db night.db`,

	"nightshift task drop": `
# give task 1 up: no night takes it again
nightshift task drop 1 --reason "done by hand" --db night.db`,

	"nightshift task approve": `
# allow the action parked task 3 asked about (task list shows it parked)
nightshift task approve 3 --db night.db`,

	"nightshift task deny": `
# refuse it: the task fails, with the reason recorded
nightshift task deny 3 --db night.db`,

	"nightshift report": `
# the morning report of the last 14 nights
nightshift report --db night.db
# the last 30 days, as JSON
nightshift report --db night.db --since 30d --json
# the last week as a page with charts
nightshift report --db night.db --nights 7 --html morning.html`,

	"nightshift version": `
# the module version, the source revision and the Go version
nightshift version`,

	"nightshift help": `
# the flags of run
nightshift help run`,

	"nightshift completion": `
# completion for bash, loaded by bash-completion
nightshift completion bash > ~/.local/share/bash-completion/completions/nightshift`,

	"nightshift completion bash": `
# loaded by bash-completion at the next shell
nightshift completion bash > ~/.local/share/bash-completion/completions/nightshift`,

	"nightshift completion zsh": `
# into a folder on $fpath
nightshift completion zsh > "${fpath[1]}/_nightshift"`,

	"nightshift completion fish": `
# loaded by fish at the next shell
nightshift completion fish > ~/.config/fish/completions/nightshift.fish`,

	"nightshift completion powershell": `
# for the current session (add it to your profile to keep it)
nightshift completion powershell > nightshift.ps1`,
}

// setExamples gives every command of the tree its Examples from the
// table, indented as cobra prints them.
func setExamples(c *cobra.Command) {
	if ex, ok := examples[c.CommandPath()]; ok {
		lines := strings.Split(strings.TrimSpace(ex), "\n")
		for i, l := range lines {
			lines[i] = "  " + l
		}
		c.Example = strings.Join(lines, "\n")
	}
	for _, sub := range c.Commands() {
		setExamples(sub)
	}
}

// exampleCommands returns a command's example invocations, without
// their comment lines.
func exampleCommands(c *cobra.Command) []string {
	var out []string
	for _, l := range strings.Split(c.Example, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}
