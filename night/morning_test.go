package night_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// TestTheNightLeavesItsSetupAndSaysWhatEachStepStarts: the morning report
// draws a night against its own ceilings and models, so the night keeps
// them in the ledger; and each step says, as it starts, its role, task,
// place under the ceiling, the night's tokens so far and when the window
// closes (the live status line of `nightshift night` reads it).
func TestTheNightLeavesItsSetupAndSaysWhatEachStepStarts(t *testing.T) {
	f := setup(t, seedPipeline)
	f.add("booklet", 9)
	b := f.builder(10*time.Minute, done)
	var rec event.Recorder
	sum, err := night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Builder: b, Clock: f.clk, Events: &rec,
		Models: map[string]llm.Model{"idea": proposer(), "judge": judge()}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.l.NightSetup(context.Background(), sum.Night.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.Setup{WIP: 3, Roles: map[ledger.Role]ledger.RoleSetup{
		ledger.Proposer: {Models: []string{"idea"}},
		ledger.Judge:    {Models: []string{"judge"}},
		ledger.Builder:  {Models: []string{"b1", "b2"}, Ceiling: 14},
	}, Models: map[string]ledger.ModelSetup{"idea": {Provider: "scripted"}, "judge": {Provider: "scripted"},
		"b1": {Provider: "scripted"}, "b2": {Provider: "scripted"}}, WorkDir: f.p.WorkDir,
		Charges: map[string]ledger.Charge{
			"by-hand": night.Rules(night.DefaultRules).Ledger(night.ByHand, ledger.Builder),
			"denied":  night.Rules(night.DefaultRules).Ledger(night.Denied, ledger.Builder),
		}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("setup (-want +got):\n%s", diff)
	}

	var starts []event.Event
	for _, e := range rec.Events() {
		if e.Type == "step-start" {
			starts = append(starts, e)
		}
	}
	steps, err := f.l.Steps(context.Background(), sum.Night.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != len(steps) {
		t.Fatalf("%d step-start events for %d steps", len(starts), len(steps))
	}
	var builder []event.Event
	for _, e := range starts {
		if e.Data["role"] == ledger.Builder {
			builder = append(builder, e)
		}
	}
	if len(builder) != 14 {
		t.Fatalf("%d builder step-starts, want the ceiling's 14", len(builder))
	}
	first, last := builder[0], builder[13]
	if first.Detail != `builder/b1 task=1 "booklet" 1/14` || first.Data["n"] != 1 || first.Data["ceiling"] != 14 || first.Data["title"] != "booklet" {
		t.Errorf("first builder step-start: %q %v", first.Detail, first.Data)
	}
	if last.Data["n"] != 14 || !last.Data["window_end"].(time.Time).Equal(dusk.Add(8*time.Hour)) {
		t.Errorf("last builder step-start: %q %v", last.Detail, last.Data)
	}
	// One chain works the night, a step at a time: the last builder step
	// starts with every token but its own 100 spent.
	total, err := f.l.NightTokens(context.Background(), sum.Night.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last.Data["tokens"] != total.Total-100 {
		t.Errorf("the last step-start says %v tokens so far, want %d", last.Data["tokens"], total.Total-100)
	}
}
