package night_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/retry"
)

const outagePipeline = `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
  b2: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1, b2], no_judge: true, sandbox: none, breaker: {failures: 3, cool: 30s}}
`

// builderTurns write out.txt and say so: one attempt, two calls, each
// taking delay of the night's (simulated) time.
func builderTurns(delay string) string {
	return "turns:\n  - {delay: " + delay + ", tool_calls: [{name: write_file, input: {path: out.txt, content: built}}]}\n  - {delay: " + delay + ", text: Built out.txt.}\n"
}

// TestANightWaitsOutOneBuildersOutage is issue 26's acceptance (c): a
// night with two builders on two endpoints, the first down for an hour
// after its first attempt (the night's clock simulated). The first's
// breaker opens and it is charged once, waiting for its provider; the
// second carries on with the tasks; the first comes back when its
// provider does. No task failure is recorded for the outage, the night
// ends as any night (not cut short), and the morning has one line for
// the outage with its span.
func TestANightWaitsOutOneBuildersOutage(t *testing.T) {
	f := setup(t, outagePipeline)
	model := func(yaml string) llm.Model {
		sc, err := scripted.Parse([]byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		return scripted.New(sc, scripted.Config{Clock: f.clk})
	}
	models := map[string]llm.Model{
		"b1": model("down: {after: 2, for: 1h}\n" + builderTurns("1m")),
		"b2": model(builderTurns("10m")),
	}
	const tasks = 5
	for i := range tasks {
		f.add("task "+string(rune('a'+i)), float64(tasks-i))
	}
	rec := &event.Recorder{}
	sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Models: models, Clock: f.clk, Events: rec, Idle: time.Hour,
		Retry: retry.Policy{Budget: 20 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Night.End == ledger.CutShort || sum.Night.CutShort() {
		t.Errorf("the night ended %s (%s): an outage does not cut it short", sum.Night.End, sum.Night.Reason)
	}
	fs := f.failures(sum.Night)
	waits := 0
	for _, fl := range fs {
		switch {
		case fl.Rule == string(night.WaitingForProvider) && fl.Scope == ledger.WorkerScope && fl.Worker == "b1":
			waits++
		case fl.Scope == ledger.TaskScope:
			t.Errorf("a task failure was recorded: %+v", fl)
		default:
			t.Errorf("unexpected failure: %+v", fl)
		}
	}
	if waits != 1 {
		t.Errorf("b1 was charged %d times for its outage, want once (%v)", waits, rules(fs))
	}
	steps, err := f.l.Steps(context.Background(), sum.Night.ID)
	if err != nil {
		t.Fatal(err)
	}
	outageEnd := dusk.Add(time.Hour)
	var b1After, b2During, done int
	for _, s := range steps {
		if s.Role != ledger.Builder || s.Outcome != string(agent.Done) {
			continue
		}
		done++
		switch {
		case s.Worker == "b1" && s.StartedAt.After(outageEnd):
			b1After++
		case s.Worker == "b2" && s.StartedAt.Before(outageEnd):
			b2During++
		}
	}
	if b2During == 0 {
		t.Errorf("b2 finished no task during b1's outage: it did not carry on")
	}
	if b1After == 0 {
		t.Errorf("b1 finished no task after its provider came back")
	}
	if done != tasks {
		t.Errorf("%d tasks done, want all %d", done, tasks)
	}
	r, err := report.Build(context.Background(), f.l, f.clk.Now(), report.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := r.Text(&text); err != nil {
		t.Fatal(err)
	}
	var outage []string
	for _, line := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "waiting for the provider:") {
			outage = append(outage, strings.TrimSpace(line))
		}
	}
	if len(outage) != 1 || !strings.Contains(outage[0], "builder/b1 22:") || !strings.Contains(outage[0], "no task charged") {
		t.Errorf("the morning report's outage lines %q, want one for b1 with its span\n%s", outage, text.String())
	}
	t.Logf("%d steps, %d events", len(steps), len(rec.Events()))
	t.Logf("end %s (%s); b2 during %d, b1 after %d; %s", sum.Night.End, sum.Night.Reason, b2During, b1After, outage)
}

// A provider down past the window's end ends the night provider-down,
// not cut short: its only builder waited, and no task was charged.
func TestANightWhoseOnlyBuilderWaitsPastTheWindowEndsProviderDown(t *testing.T) {
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], no_judge: true, sandbox: none, breaker: {failures: 3, cool: 10m}}
`)
	sc, err := scripted.Parse([]byte("down: {after: 0, for: 12h}\n" + builderTurns("1m")))
	if err != nil {
		t.Fatal(err)
	}
	task := f.add("build out.txt", 5)
	sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Clock: f.clk, Idle: time.Hour,
		Models: map[string]llm.Model{"b1": scripted.New(sc, scripted.Config{Clock: f.clk})}, Retry: retry.Policy{Budget: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Night.End != ledger.ProviderDown || sum.Night.CutShort() {
		t.Errorf("the night ended %s (%s), want provider-down", sum.Night.End, sum.Night.Reason)
	}
	if got, _ := f.l.Task(context.Background(), task.ID); got.State != ledger.Queued {
		t.Errorf("the task is %s, want queued for another night", got.State)
	}
	if fs := f.failures(sum.Night); len(fs) != 1 || fs[0].Rule != string(night.WaitingForProvider) {
		t.Errorf("failures %v, want one waiting-for-provider", rules(fs))
	}
}
