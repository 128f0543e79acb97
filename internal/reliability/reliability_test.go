package reliability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/internal/reliability"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// scripted returns a RunFunc that ends each task's n-th run (from 0) with
// outcomes[name][n], retrying retries[name][n] times, its events counted
// by r.
func scripted(outcomes map[string][]agent.Outcome, retries map[string][]int, r *reliability.Retries) func(context.Context, *taskfile.Spec, string) *agent.Result {
	var mu sync.Mutex
	seen := map[string]int{}
	return func(_ context.Context, spec *taskfile.Spec, dir string) *agent.Result {
		mu.Lock()
		n := seen[spec.Name]
		seen[spec.Name]++
		mu.Unlock()
		sink := r.Sink(dir)
		tries := 0
		if rs := retries[spec.Name]; n < len(rs) {
			tries = rs[n]
		}
		for range tries {
			sink.Emit(event.Event{Type: event.Retry})
		}
		sink.Emit(event.Event{Type: event.Turn})
		return &agent.Result{Outcome: outcomes[spec.Name][n], Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}, Cost: models.USD(0.01)}
	}
}

func TestTheFiguresAreThoseOfTheRuns(t *testing.T) {
	specs := []*taskfile.Spec{{Name: "fix-readme", Task: "Fix it"}, {Name: "summarise", Task: "Sum it up"}}
	cleanRetries, faultRetries := reliability.NewRetries(), reliability.NewRetries()
	done := []agent.Outcome{agent.Done, agent.Done, agent.Done}
	rep, err := reliability.Run(t.Context(), reliability.Config{
		Runs:     3,
		Parallel: 1,
		WorkDir:  filepath.Join(t.TempDir(), "work"),
		Conditions: []reliability.Condition{
			{Name: "clean", Run: scripted(map[string][]agent.Outcome{"fix-readme": done, "summarise": done}, nil, cleanRetries), Retries: cleanRetries.Count},
			{Name: "faults", Faults: "429=0.5 seed=1", Run: scripted(map[string][]agent.Outcome{
				"fix-readme": done,
				"summarise":  {agent.Done, agent.APIFailure, agent.Unverified},
			}, map[string][]int{"fix-readme": {1, 0, 2}, "summarise": {0, 4, 0}}, faultRetries), Retries: faultRetries.Count,
				Requests: func() int { return 20 }, Injected: func() map[string]int { return map[string]int{"429": 7} }},
		},
	}, specs)
	if err != nil {
		t.Fatal(err)
	}
	sum := rep.Tasks[1].By["faults"]
	want := &reliability.Figures{Tasks: 1, Runs: 3, Done: 1, Unverified: 1, Failed: 1, PassRate: 1.0 / 3, PassK: 0, Retries: 4,
		InputTokens: 300, OutputTokens: 30, Cost: models.USD(0.03), Outcomes: map[string]int{"done": 1, "api-failure": 1, "unverified": 1}}
	if diff := cmp.Diff(want, sum, cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); diff != "" {
		t.Errorf("summarise under faults (-want +got):\n%s", diff)
	}
	if f := rep.Tasks[0].By["faults"]; f.PassK != 1 || f.Retries != 3 || f.Done != 3 {
		t.Errorf("fix-readme under faults: %+v", f)
	}
	all := rep.Overall["faults"]
	if all.Tasks != 2 || all.Runs != 6 || all.Done != 4 || all.PassK != 1 || all.PassKRate != 0.5 || all.Retries != 7 {
		t.Errorf("overall under faults: %+v", all)
	}
	if clean := rep.Overall["clean"]; clean.PassK != 2 || clean.Done != 6 || clean.Retries != 0 {
		t.Errorf("overall clean: %+v", clean)
	}

	t.Run("as text", func(t *testing.T) {
		var b bytes.Buffer
		if err := rep.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		for _, line := range []string{
			"reliability · 2 tasks × 3 runs · pass^3: every one of the 3 runs done",
			"  clean: no faults",
			"  faults: 429=0.5 seed=1 · 7 of 20 requests faulted (429 7)",
			"            faults     1/3   1           1       no      4        300/30         $0.0300  api-failure 1 · done 1 · unverified 1",
			"overall     clean      6/6   0           0       2/2     0        600/60         $0.0600  done 6",
			"faults: 67% of the runs done, pass^3 50% of the tasks",
		} {
			if !strings.Contains(b.String(), line) {
				t.Errorf("the text lacks %q:\n%s", line, b.String())
			}
		}
	})
	t.Run("as JSON", func(t *testing.T) {
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Runs       int
			Conditions []struct {
				Name     string
				Injected map[string]int
			}
			Overall map[string]struct {
				PassK     int     `json:"pass_k"`
				PassKRate float64 `json:"pass_k_rate"`
				Cost      float64 `json:"cost_usd"`
				Outcomes  map[string]int
			}
		}
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Runs != 3 || len(got.Conditions) != 2 || got.Conditions[1].Injected["429"] != 7 ||
			got.Overall["faults"].PassK != 1 || got.Overall["faults"].Outcomes["api-failure"] != 1 || got.Overall["clean"].Cost < 0.0599 {
			t.Errorf("JSON:\n%s", b.String())
		}
	})
}

func TestABadConfigIsRefused(t *testing.T) {
	run := func(context.Context, *taskfile.Spec, string) *agent.Result { return &agent.Result{Outcome: agent.Done} }
	specs := []*taskfile.Spec{{Name: "a", Task: "x"}}
	for _, c := range []struct {
		cfg  reliability.Config
		want string
	}{
		{reliability.Config{}, "no condition"},
		{reliability.Config{Conditions: []reliability.Condition{{Name: "a b", Run: run}}}, "a name is a word"},
		{reliability.Config{Conditions: []reliability.Condition{{Name: "x", Run: run}, {Name: "x", Run: run}}}, "two conditions are named"},
		{reliability.Config{Conditions: []reliability.Condition{{Name: "x"}}}, "no Run function"},
		{reliability.Config{Runs: -1, Conditions: []reliability.Condition{{Name: "x", Run: run}}}, "want 1 or more"},
	} {
		if _, err := reliability.Run(t.Context(), c.cfg, specs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}
