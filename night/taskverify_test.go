package night_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/runspec"
)

// TestATasksOwnChecksCatchAHalfDoneJobTheRoleWouldPass: a night task's
// own verify keys go over the builder role's (issue 24, per task): a role
// with no judge and no checks would count the half-done job done; the
// task's check catches it, and another task of the same night, without
// keys of its own, is verified by the role's alone.
func TestATasksOwnChecksCatchAHalfDoneJobTheRoleWouldPass(t *testing.T) {
	ctx := context.Background()
	f := setup(t, `
window: {start: "22:00", end: "06:00"}
models:
  b1: {provider: scripted, scenario: unused.yaml}
roles:
  builder: {models: [b1], ceiling: 2, no_judge: true, claims: false}
`)
	score := 9.0
	checked, err := f.l.AddTask(ctx, ledger.NewTask{Title: "Write docs/install.md with all 5 install steps", Score: &score,
		Verify: &ledger.TaskVerify{Verify: runspec.Verify{Checks: runspec.List{`matches:docs/install.md:(?m)^5\.`}, MaxVerifyRounds: 1}}}, f.clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	plain := f.add("Write docs/install.md with the install steps", 8)
	sum, _ := f.runNight(f.scriptedModels(map[string]string{"b1": halfDone}))
	steps, _ := f.l.Steps(ctx, sum.Night.ID)
	outcome := map[int64]string{}
	for _, s := range steps {
		if s.Role == ledger.Builder {
			outcome[s.Task] = s.Outcome + " " + strings.Join(s.Checks, ",")
		}
	}
	if got := outcome[checked.ID]; got != "unverified matches" {
		t.Errorf("the task with its own check: %q, want unverified by matches", got)
	}
	if got := outcome[plain.ID]; !strings.HasPrefix(got, "done") {
		t.Errorf("the task without keys of its own: %q, want done (the role's verification alone)", got)
	}
	back, _ := f.l.Task(ctx, checked.ID)
	if back.Verify == nil || len(back.Verify.Checks) != 1 || back.Verify.MaxVerifyRounds != 1 {
		t.Errorf("the ledger's task keys %+v, want the check and the rounds kept", back.Verify)
	}
}
