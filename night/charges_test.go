package night_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// TestAPipelineChargesAParkingDeadlineAsItsRulesSay is issue 24's "every
// failure charge goes through the rules table": the parking deadline,
// the denial and the failure by hand were charged to the task by the
// ledger itself, whatever the pipeline's rules said.
func TestAPipelineChargesAParkingDeadlineAsItsRulesSay(t *testing.T) {
	f := setup(t, twoBuilders+`park: {deadline: 2h, past_deadline: fail}
rules:
  - {failure: park-deadline, scope: night, reason: "an unanswered question costs the night here"}
`)
	f.add("fetch the book", 5)
	parks := func(night.Assignment) night.Attempt {
		return night.Attempt{Outcome: agent.Parked, Park: &night.ParkRequest{Action: `fetch {"url":"https://example.org/book"}`, Reason: "danger"}}
	}
	sum := f.run(f.builder(time.Minute, parks), nil)
	fs := f.failures(sum.Night)
	if len(fs) == 0 || fs[0].Rule != "park-deadline" || fs[0].Scope != ledger.NightScope || !strings.Contains(fs[0].Reason, "costs the night here") {
		t.Fatalf("failures %+v, want the deadline charged as the pipeline's row says", fs)
	}
	for _, k := range []night.Kind{night.ParkDeadline, night.Denied, night.ByHand} {
		if c := night.Rules(night.DefaultRules).Ledger(k, ledger.Builder); c.Scope != ledger.TaskScope || c.Rule != string(k) || c.Why == "" {
			t.Errorf("default charge of %s: %+v, want the task's, with its row's reason", k, c)
		}
	}
}

// TestANightRecordsHowItsRulesChargeAPersonsCommands: the charges of
// `task fail` (by-hand) and `task deny` (denied) are the night's rules'
// and go in its setup, where those commands read them: a pipeline's row
// changes them as it changes the night's own charges.
func TestANightRecordsHowItsRulesChargeAPersonsCommands(t *testing.T) {
	f := setup(t, twoBuilders+`rules:
  - {failure: by-hand, scope: worker, reason: "a person's failure blames the worker here"}
`)
	f.add("fetch the book", 5)
	sum := f.run(f.builder(time.Minute, done), nil)
	got, err := f.l.NightSetup(context.Background(), sum.Night.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Charges["by-hand"]; c.Scope != ledger.WorkerScope || !strings.Contains(c.Why, "blames the worker") {
		t.Errorf("by-hand charge %+v, want the pipeline's row", c)
	}
	if c := got.Charges["denied"]; c.Scope != ledger.TaskScope {
		t.Errorf("denied charge %+v, want the default row's", c)
	}
}
