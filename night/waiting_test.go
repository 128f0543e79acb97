package night_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/night"
)

// TestWaitingOnARoleThatIsOut: when a role waits on another that is out,
// the ledger says so, and so does the morning report.
func TestWaitingOnARoleThatIsOut(t *testing.T) {
	quota := &llm.Error{Provider: "scripted", Class: llm.Quota, Status: 429}
	refuse := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) { return nil, quota })
	tests := []struct {
		name     string
		pipeline string
		models   map[string]llm.Model
		builder  func(night.Assignment) night.Attempt
		want     string
	}{
		{
			name: "the proposer at the WIP cap waits on a builder that is out",
			pipeline: `
window: {start: "22:00", end: "06:00"}
wip: 1
models:
  idea: {provider: scripted, scenario: unused.yaml}
  b: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea]}
  builder: {models: [b]}
`,
			models:  map[string]llm.Model{"idea": proposer()},
			builder: func(night.Assignment) night.Attempt { return night.Attempt{Outcome: agent.APIFailure, Err: quota} },
			want:    "the proposer waits at the WIP cap on the builder, which is out",
		},
		{
			name: "the builder waits on a judge that is out",
			pipeline: `
window: {start: "22:00", end: "06:00"}
models:
  idea: {provider: scripted, scenario: unused.yaml}
  judge: {provider: scripted, scenario: unused.yaml}
  b: {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea]}
  judge: {models: [judge]}
  builder: {models: [b]}
`,
			models:  map[string]llm.Model{"idea": proposer(), "judge": refuse},
			builder: done,
			want:    "the builder waits on the judge, which is out",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t, tt.pipeline)
			sum := f.run(f.builder(time.Minute, tt.builder), tt.models)
			if sum.Night.End != ledger.CutShort {
				t.Errorf("the night ended %s (%s), want cut-short: every worker of a role is out", sum.Night.End, sum.Night.Reason)
			}
			notes, err := f.l.Notes(context.Background(), sum.Night.ID)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, n := range notes {
				texts = append(texts, n.Kind+": "+n.Text)
			}
			if !strings.Contains(strings.Join(texts, "\n"), "waiting: "+tt.want) {
				t.Errorf("the ledger's notes %q lack %q", texts, tt.want)
			}
			r, err := report.Build(context.Background(), f.l, f.clk.Now(), report.Config{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := r.Text(&b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "note waiting: "+tt.want) {
				t.Errorf("the report lacks the note %q:\n%s", tt.want, b.String())
			}
		})
	}
}
