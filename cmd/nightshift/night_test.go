package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/ledger"
)

// execute runs one of this file's commands with args, as main would.
func execute(t *testing.T, cmd *cobra.Command, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	// Not nil: cobra reads nil as "the process's own arguments", the test
	// binary's -test.* flags (the test failed when run with any).
	cmd.SetArgs(append([]string{}, args...))
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func exitOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if err != nil {
		return 1
	}
	return 0
}

func TestNightDemo(t *testing.T) {
	dir := t.TempDir()
	db, page := filepath.Join(dir, "demo.db"), filepath.Join(dir, "demo.html")
	out, stderr, err := execute(t, newNightCmd(), "--demo", "--db", db, "--html", page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Needs a person (1), the most urgent first:", `task 1 "booklet from a public-domain text": night 2025-10-21, build1, failed not-empty`,
		"nightshift task show 1 --db " + db,
		"ended ceilings-reached", "builder 14 of 14", "empty-answer", "Nights that ended early (both): 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo report lacks %q:\n%s", want, out)
		}
	}
	// It ends by writing the report's page and saying where.
	if !strings.HasSuffix(stderr, "[demo · the morning report as a page: "+page+" (open it in a browser)]\n") {
		t.Errorf("the demo's last line is not the page's path:\n%s", stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(data), `<section id="timeline" data-night="2025-10-21"`) {
		t.Errorf("the page (%v) lacks the night's timeline", err)
	}
	// Off a terminal, each step says what it starts on a line of its own.
	if !strings.Contains(stderr, `[step-start · builder/build1 task=1 "booklet from a public-domain text" 1/14]`) {
		t.Errorf("stderr lacks the booklet's step-start line:\n%s", stderr)
	}
}

func TestNightBadPipelineExits2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(path, []byte("window: {start: 25:00, end: 06:00}\nroles: {}\n"), 0o644) //nolint:errcheck // read back below
	_, _, err := execute(t, newNightCmd(), "--pipeline", path, "--db", filepath.Join(t.TempDir(), "x.db"))
	if exitOf(err) != 2 {
		t.Errorf("bad pipeline: exit %d (%v), want 2", exitOf(err), err)
	}
	if _, _, err := execute(t, newNightCmd()); exitOf(err) != 2 {
		t.Errorf("no --pipeline: exit %d, want 2", exitOf(err))
	}
}

func TestTaskCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	id, _, err := execute(t, newTaskCmd(), "add", "a chart of the tides", "--score", "7", "--db", db)
	if err != nil || strings.TrimSpace(id) != "1" {
		t.Fatalf("task add printed %q, %v", id, err)
	}
	out, _, err := execute(t, newTaskCmd(), "fail", "1", "--reason", "returned nothing on the 17th", "--db", db)
	if err != nil || !strings.Contains(out, "scope task") {
		t.Errorf("task fail: %q, %v", out, err)
	}
	list, _, _ := execute(t, newTaskCmd(), "list", "--db", db)
	if !strings.Contains(list, "a chart of the tides") || !strings.Contains(list, "7") {
		t.Errorf("task list:\n%s", list)
	}
	if _, _, err := execute(t, newTaskCmd(), "approve", "1", "--db", db); exitOf(err) != 2 {
		t.Errorf("approving a task that is not parked: exit %d (%v), want 2", exitOf(err), err)
	}
	if _, _, err := execute(t, newTaskCmd(), "fail", "x", "--reason", "r", "--db", db); exitOf(err) != 2 {
		t.Errorf("a bad ID: exit %d, want 2", exitOf(err))
	}
	rep, _, err := execute(t, newReportCmd(), "--json", "--db", db)
	if err != nil || !strings.Contains(rep, `"nights"`) {
		t.Errorf("report --json: %q, %v", rep, err)
	}
}

// TestNightSystemStopExits8: a provider without its key is a configuration
// failure, charged to the system: the night stops at once, exit 8, and the
// report counts it among the nights that ended early.
func TestNightSystemStopExits8(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	dir := t.TempDir()
	db := filepath.Join(dir, "night.db")
	now := time.Now().UTC()
	pipeline := fmt.Sprintf(`window: {start: "%s", end: "%s"}
models: {claude: {provider: anthropic, model: claude-sonnet-4-5}}
roles: {builder: {models: [claude]}}
`, now.Add(-time.Hour).Format("15:04"), now.Add(time.Hour).Format("15:04"))
	path := filepath.Join(dir, "pipeline.yaml")
	if err := os.WriteFile(path, []byte(pipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := execute(t, newTaskCmd(), "add", "a chart of the tides", "--score", "7", "--db", db); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := execute(t, newNightCmd(), "--pipeline", path, "--db", db)
	if exitOf(err) != 8 || !strings.Contains(stderr, "system-stopped") {
		t.Errorf("exit %d (%v), want 8 with the night system-stopped:\n%s", exitOf(err), err, stderr)
	}
	rep, _, err := execute(t, newReportCmd(), "--db", db)
	if err != nil || !strings.Contains(rep, "system config") || !strings.Contains(rep, "Nights that ended early (both): 1") {
		t.Errorf("report: %v\n%s", err, rep)
	}
}

// TestNightWithAMissingKeySaysWhichBeforeTheProposerAndJudgeRun: a night
// whose builder's provider has no key said only `model "maker" was not
// built`, and only after the proposer and the judge had run (issue 17).
// The night checks before its first step: a config failure naming the
// variable, exit 8, and no step taken.
func TestNightWithAMissingKeySaysWhichBeforeTheProposerAndJudgeRun(t *testing.T) {
	t.Setenv("MAKER_KEY", "")
	dir := t.TempDir()
	db := filepath.Join(dir, "night.db")
	now := time.Now().UTC()
	writeFiles(t, dir, map[string]string{
		"pipeline.yaml": fmt.Sprintf(`window: {start: "%s", end: "%s"}
models:
  ideas:  {provider: scripted, scenario: ideas.yaml}
  scorer: {provider: scripted, scenario: scorer.yaml}
  maker:  {provider: openai, model: gpt-6-sol, api_key_env: MAKER_KEY}
roles:
  proposer: {models: [ideas], ceiling: 2}
  judge:    {models: [scorer]}
  builder:  {models: [maker]}
`, now.Add(-time.Hour).Format("15:04"), now.Add(time.Hour).Format("15:04")),
		"ideas.yaml":  "turns: [{text: \"- a haiku about tides\"}]\n",
		"scorer.yaml": "turns: [{text: \"1: 6\"}]\n",
	})
	_, stderr, err := execute(t, newNightCmd(), "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--db", db)
	if exitOf(err) != 8 || !strings.Contains(stderr, "[failure · system config: ") ||
		!strings.Contains(stderr, "models.maker (openai) needs its key: MAKER_KEY is not set") {
		t.Errorf("exit %d (%v), want 8 with a config failure naming MAKER_KEY:\n%s", exitOf(err), err, stderr)
	}
	if strings.Contains(stderr, "[step ·") {
		t.Errorf("a step ran before the missing key was found:\n%s", stderr)
	}
	rep, _, err := execute(t, newReportCmd(), "--db", db)
	if err != nil || !strings.Contains(rep, "MAKER_KEY is not set") || !strings.Contains(rep, "proposer 0 of 2, judge 0, builder 0 of 14") {
		t.Errorf("report: %v\n%s", err, rep)
	}
}

// TestReportHTML writes the page with its charts to a file.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	db, page := filepath.Join(dir, "demo.db"), filepath.Join(dir, "report.html")
	if _, _, err := execute(t, newNightCmd(), "--demo", "--db", db, "--html", filepath.Join(dir, "demo.html")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := execute(t, newReportCmd(), "--db", db, "--html", page); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(page)
	for _, want := range []string{`id="needs"`, `id="timeline"`, `id="trend-steps"`, `id="trend-ends"`} {
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("the page (%v) lacks %s", err, want)
		}
	}
	if _, _, err := execute(t, newReportCmd(), "--db", db, "--html", page, "--json"); exitOf(err) != 2 {
		t.Errorf("--json with --html: exit %d, want 2", exitOf(err))
	}
}

// TestNightWorkersAndLease: ledger.Config's Workers and Lease had no flag.
// --lease sets how long a step's lease is (its row says until when), and
// --workers how many steps at once; neither takes a value that could not
// work.
func TestNightWorkersAndLease(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p.yaml": `window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: b.yaml}}
roles: {builder: {models: [b], ceiling: 2}}
`,
		"b.yaml": "loop: true\nturns:\n  - text: Built it.\n",
	})
	db := filepath.Join(dir, "n.db")
	for _, title := range []string{"one", "two"} {
		if res := runCLI(t, "task", "add", title, "--score", "5", "--db", db); res.code != 0 {
			t.Fatalf("task add: %d %s", res.code, res.stderr)
		}
	}
	before := time.Now()
	res := runCLI(t, "night", "--pipeline", filepath.Join(dir, "p.yaml"), "--db", db, "--clock", "sim", "--from", "2025-10-21",
		"--workers", "2", "--lease", "30m")
	if res.code != 0 || !strings.Contains(res.stderr, "builder steps finished 2; ") {
		t.Fatalf("exit %d:\n%s", res.code, res.stderr)
	}
	l, err := ledger.Open(context.Background(), db, ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background()) //nolint:errcheck // test cleanup
	n, err := l.NightByName(context.Background(), "2025-10-21")
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := l.Steps(context.Background(), n.ID)
	for _, s := range steps {
		// The lease is taken by the wall clock when the step is claimed.
		if lease := s.LeaseUntil.Sub(before); lease < 30*time.Minute || lease > 31*time.Minute {
			t.Errorf("step %d's lease runs %s after the night began, want 30m", s.ID, lease.Round(time.Second))
		}
	}
	for _, args := range [][]string{{"--workers", "0"}, {"--lease", "0s"}, {"--lease", "-1h"}} {
		res := runCLI(t, append([]string{"night", "--pipeline", filepath.Join(dir, "p.yaml"), "--db", db}, args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, args[0]) {
			t.Errorf("night %v: exit %d: %s; want 2 naming the flag", args, res.code, res.stderr)
		}
	}
}
