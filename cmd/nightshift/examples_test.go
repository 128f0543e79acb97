package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// exampleScenario answers every worker with a plain summary and every
// judge with PASS: the examples' runs end done, whatever they ask.
const exampleScenario = `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns: [{text: "PASS"}]
  - name: worker
    turns:
      - text: "The notes describe a plan for the migration with its owners, its dates and the review that follows it, and they end with the open questions that remain for the team to answer."
`

// exampleFiles are the files the examples name, as a reader would have
// them.
var exampleFiles = map[string]string{
	"notes.md":         "# Migration\nOwners, dates, the review, open questions.\n",
	"project/notes.md": "# Migration\nOwners, dates, the review, open questions.\n",
	"s.yaml":           exampleScenario,
	"task.yaml":        "task: Summarise notes.md\ndir: project\n",
	"tasks.yaml":       "- {name: one, task: Summarise notes.md, dir: project}\n- {name: two, task: Summarise notes.md again, dir: project}\n",
	"faults.yaml":      "rate:\n  429: 0.05\n",
	"pipeline.yaml": `window: {start: "22:00", end: "06:00"}
models: {maker: {provider: scripted, scenario: s.yaml}}
roles:
  builder: {models: [maker], ceiling: 1, no_judge: true}
`,
}

// exampleNotRun are the examples that cannot run unattended here, and
// why; they are still parsed (the command, its flags and its arguments).
var exampleNotRun = map[string]string{
	"nightshift run --resume 20261130T190412Z-43dc9d3e --budget-usd 1":                         "needs a paused run of that ID (TestSignalPausesTheRun resumes one)",
	"nightshift sim serve --cassette session.jsonl":                                            "needs a session recorded by sim proxy --record (docs/cassettes tests record one)",
	"nightshift night --demo":                                                                  "as written, it is played by TestTheDemoPageIsWrittenInAPrivateFolderNeverThroughALink (a whole night, 15 seconds)",
	"nightshift task approve 3 --db night.db":                                                  "needs a task parked by the gate (the task tests park one)",
	"nightshift task deny 3 --db night.db":                                                     "needs a task parked by the gate (the task tests park one)",
	"nightshift night --pipeline pipeline.yaml --db night.db --html morning.html":              "a real night waits for its window, 22:00-06:00 (the night tests run one around now)",
	"nightshift night --pipeline pipeline.yaml --db night.db --workers 2 --lease 5m":           "a real night waits for its window, 22:00-06:00 (the night tests run one around now)",
	"nightshift eval reliability --tasks tasks.yaml --runs 5 --fault 429=0.2 --fault cut=0.05": "waits out the real backoffs of the faults it injects, minutes (TestEvalReliability* run it with short ones)",
}

// exampleWant gives an example's exit status when it is not 0.
var exampleWant = map[string]int{}

// allCommands lists the tree's commands, the root first, hidden ones
// (cobra's own) left out.
func allCommands(c *cobra.Command) []*cobra.Command {
	if c.Hidden {
		return nil
	}
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}

// isUnder reports whether c is cmd or one of its subcommands.
func isUnder(c, cmd *cobra.Command) bool {
	for ; c != nil; c = c.Parent() {
		if c == cmd {
			return true
		}
	}
	return false
}

// Issue 23: every command shows real invocations under Examples, and
// each one works: the command and its subcommand exist, its flags parse,
// its arguments are as many as it takes, and it runs, in a folder that
// holds the files it names, against the scripted model or a simulator
// standing in for the provider of a key (made up). A command without
// examples fails the test, as does an example that does not run and is
// not listed in exampleNotRun with the reason.
func TestEveryExampleRuns(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	cmds := allCommands(root)
	if len(cmds) < 25 {
		t.Fatalf("only %d commands: is the tree still walked right?", len(cmds))
	}
	sim := examplesSim(t)
	used := map[string]bool{}
	for _, c := range cmds {
		t.Run(c.CommandPath(), func(t *testing.T) {
			lines := exampleCommands(c)
			if len(lines) == 0 {
				t.Fatalf("%s has no examples: add its invocations to the examples table (examples.go)", c.CommandPath())
			}
			dir := exampleFolder(t)
			for _, line := range lines {
				used[line] = true
				checkExampleParses(t, c, line)
				if why, ok := exampleNotRun[line]; ok {
					t.Logf("not run (%s): %s", why, line)
					continue
				}
				runExample(t, dir, sim, line)
			}
		})
	}
	for line := range exampleNotRun {
		if !used[line] {
			t.Errorf("exampleNotRun lists %q, which is no example: drop it", line)
		}
	}
}

// checkExampleParses checks that an example of c names c (or, for a
// command of commands, one of its subcommands), with flags it has and
// arguments it takes.
func checkExampleParses(t *testing.T, c *cobra.Command, line string) {
	t.Helper()
	args := documentedArgs(line)
	if args == nil {
		t.Errorf("%q is not a nightshift command line", line)
		return
	}
	// A fresh tree: parsing sets flags.
	fresh := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	found, rest, err := fresh.Find(args)
	if err != nil {
		t.Errorf("%q: %v", line, err)
		return
	}
	if found.CommandPath() != c.CommandPath() && !(c.HasSubCommands() && isUnder(found, findPath(fresh, c.CommandPath()))) {
		t.Errorf("%q is an example of %s, not of %s", line, found.CommandPath(), c.CommandPath())
		return
	}
	if err := found.ParseFlags(rest); err != nil {
		t.Errorf("%q: its flags: %v", line, err)
		return
	}
	if err := found.ValidateArgs(found.Flags().Args()); err != nil {
		t.Errorf("%q: its arguments: %v", line, err)
	}
}

// findPath returns the command of root at path ("nightshift sim serve").
func findPath(root *cobra.Command, path string) *cobra.Command {
	c, _, err := root.Find(strings.Fields(path)[1:])
	if err != nil {
		return nil
	}
	return c
}

// examplesSim is a simulator for the examples that need a key's
// provider: the key is made up, the base URL is the simulator's.
func examplesSim(t *testing.T) string {
	t.Helper()
	sc, err := scripted.Parse([]byte(exampleScenario))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{ForgetRequests: true}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// exampleFolder makes a folder with the files the examples name, and a
// ledger with one task in it.
func exampleFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, exampleFiles)
	judge, err := os.ReadFile("../../verify/eval/testdata/judge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"verify/eval/testdata/judge.yaml": string(judge)})
	if res := runCLI(t, "task", "add", "Write the install guide", "--db", filepath.Join(dir, "night.db")); res.code != 0 {
		t.Fatalf("task add: %s", res.stderr)
	}
	return dir
}

// runExample runs an example in dir as a reader would, with a made-up
// key whose base URL is the simulator's. A server (sim serve, sim proxy)
// runs until its first line, its URL, and is then stopped as Ctrl-C
// stops it.
func runExample(t *testing.T, dir, sim, line string) {
	t.Helper()
	args := documentedArgs(line)
	t.Chdir(dir)
	env := []string{"ANTHROPIC_API_KEY=sk-ant-made-up-for-the-examples", "ANTHROPIC_BASE_URL=" + sim, "HOME=" + dir}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "NIGHTSHIFT_MODEL"} {
		t.Setenv(k, "")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout io.Writer = &bytes.Buffer{}
	server := args[0] == "sim"
	if server {
		stdout = &cancelOn{marker: "http://", cancel: cancel}
	}
	var errb bytes.Buffer
	code := exitCode(run(ctx, args, strings.NewReader(""), stdout, &errb), &errb)
	if server && code == 130 {
		code = 0 // stopped as planned, once it served
	}
	want := exampleWant[line]
	if m := wantExit.FindStringSubmatch(line); m != nil {
		want, _ = strconv.Atoi(m[1])
	}
	if ctx.Err() != nil && !server {
		t.Errorf("%q did not end within two minutes", line)
	}
	if code != want {
		t.Errorf("%q: exit %d, want %d\n%s", line, code, want, tailOf(fmt.Sprint(stdout), errb.String()))
	} else {
		t.Logf("ran, exit %d: %s", code, line)
	}
}

func tailOf(stdout, stderr string) string {
	return tail("stdout:\n"+stdout+"\nstderr:\n"+stderr, 3000)
}
