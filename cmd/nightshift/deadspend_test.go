package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
)

// pricedScripted prices the scripted model, which charges nothing, so
// that a cost lost or double-counted shows.
const pricedScripted = `models:
  - provider: scripted
    model: "*"
    price: {input: 3.00, output: 15.00, cache_write: 3.75, cache_read: 0.30}
    source: a test's made-up price
    as_of: 2026-12-02
`

// Regression (issue 23): after a kill -9 of a night, the next night's
// and the report's cost read "unknown (… 1 step(s) without a price …)"
// though every model was priced, and the dead step's tokens were missing
// from the night's. The dead builder step now records what its attempt
// had spent by its last checkpoint; the continuation counts from there,
// so the night's total is every call's, once, and priced.
func TestAKilledNightsCostIsKnownAndCountsTheDeadStep(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().UTC()
	pipeline := strings.Replace(signalPipelineAt(now, false), "models:", "models_file: prices.yaml\nmodels:", 1)
	writeFiles(t, dir, map[string]string{"pipeline.yaml": pipeline, "maker.yaml": longAttempt, "prices.yaml": pricedScripted})
	db := filepath.Join(dir, "night.db")
	if res := runCLIEnv(t, []string{"NIGHTSHIFT_OWNER=box1"}, "task", "add", "a booklet", "--score", "9", "--db", db); res.code != 0 {
		t.Fatalf("task add: %s", res.stderr)
	}
	c := startNightChild(t, dir, "--pipeline", "pipeline.yaml", "--db", db)
	// Two calls made and checkpointed; the third is a minute long.
	c.waitFor(t, "[checkpoint · step=2 ")
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.wait(t); code != -1 {
		t.Fatalf("the child exited %d, want killed\n%s", code, stderr)
	}

	writeFiles(t, dir, map[string]string{"maker.yaml": nextAttempt})
	again := runCLIEnv(t, []string{"NIGHTSHIFT_OWNER=box1"}, "night", "--pipeline", filepath.Join(dir, "pipeline.yaml"), "--db", db)
	if again.code != 0 {
		t.Fatalf("the next night: exit %d\n%s", again.code, again.stderr)
	}
	if strings.Contains(again.stderr, "unknown") {
		t.Errorf("the next night's cost is unknown:\n%s", again.stderr)
	}
	if !strings.Contains(again.stderr, "by its last checkpoint") {
		t.Errorf("the recover line does not say what the dead attempt had spent:\n%s", again.stderr)
	}

	l, err := ledger.Open(context.Background(), db, ledger.Config{Owner: "box1"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background()) //nolint:errcheck // test cleanup
	n, err := l.NightByName(context.Background(), now.Add(-time.Hour).Format("2006-01-02"))
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := l.Steps(context.Background(), n.ID)
	if len(steps) != 2 || steps[0].State != ledger.Interrupted || steps[1].Continues != steps[0].ID {
		t.Fatalf("steps %+v; want the killed one interrupted and continued", steps)
	}
	dead, cont := steps[0], steps[1]
	if dead.Tokens == 0 || !dead.Cost.Known() {
		t.Errorf("the dead step recorded %d tokens at %s; want its two checkpointed calls, priced", dead.Tokens, dead.Cost)
	}
	if usd, _ := dead.Cost.USD(); usd <= 0 {
		t.Errorf("the dead step cost %s; want its calls' price", dead.Cost)
	}
	sp, err := l.NightSpend(context.Background(), n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sp.Total.Unpriced != 0 || !sp.Total.Cost.Known() {
		t.Errorf("the night's cost is %s (%d unpriced)", sp.Total.CostText(), sp.Total.Unpriced)
	}
	if sp.Total.Tokens != dead.Tokens+cont.Tokens {
		t.Errorf("the night's tokens are %d; want the dead step's %d and the continuation's %d", sp.Total.Tokens, dead.Tokens, cont.Tokens)
	}
	rep := runCLI(t, "report", "--db", db)
	if rep.code != 0 || strings.Contains(rep.stdout, "unknown") || strings.Contains(rep.stdout, "without a price") {
		t.Errorf("report: exit %d\n%s", rep.code, rep.stdout)
	}
}
