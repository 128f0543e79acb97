package night_test

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

func TestParsePipelineDefaults(t *testing.T) {
	p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: b.yaml}}
roles: {builder: {models: [b]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	b := p.Role(ledger.Builder)
	got := []any{p.WIP, time.Duration(p.Park.Deadline), p.Park.PastDeadline, p.WorkDir, b.Ceiling, b.MaxSteps, p.Policy().String()}
	want := []any{night.DefaultWIP, night.DefaultParkDeadline, "fail", "work", night.DefaultBuilderCeiling, night.DefaultBuilderSteps,
		"read=allow,write=allow,danger=ask"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestParsePipelineErrors(t *testing.T) {
	const ok = `window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: b.yaml}}
`
	tests := []struct {
		name, yaml, want string
	}{
		{"a misspelt key is an error, not a default", ok + "roles: {builder: {models: [b], cieling: 3}}\n", "cieling"},
		{"a window needs times of day", `window: {start: "25:00", end: "06:00"}` + "\nroles: {builder: {models: [b]}}\n", "window.start"},
		{"the builder is required", ok + "roles: {proposer: {models: [b]}}\n", "a builder is required"},
		{"a role lists models that exist", ok + "roles: {builder: {models: [c]}}\n", `model "c" is not under models`},
		{"a role has a known name", ok + "roles: {builder: {models: [b]}, critic: {models: [b]}}\n", `unknown role "critic"`},
		{"only the builder has gate rules", ok + "roles: {builder: {models: [b]}, judge: {models: [b], approve: [run_command=deny]}}\n", "approve is for the builder"},
		{"an empty gate rule is refused", ok + "roles: {builder: {models: [b], approve: [\"\"]}}\n", `roles.builder.approve "": the rule is empty; want NAME=allow|ask|deny`},
		{"gate rules must parse", ok + "roles: {builder: {models: [b], approve: [run_command=maybe]}}\n", "roles.builder.approve"},
		{"a scripted model needs a scenario", "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b: {provider: scripted}}\nroles: {builder: {models: [b]}}\n", "needs a scenario"},
		{"max_tokens_field names one of the two fields", "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b: {provider: openai, max_tokens_field: max_output_tokens}}\nroles: {builder: {models: [b]}}\n", "max_tokens_field"},
		{"max_tokens_field is for openai", "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {b: {provider: anthropic, max_tokens_field: max_tokens}}\nroles: {builder: {models: [b]}}\n", "for provider openai"},
		{"past_deadline is fail or requeue", ok + "park: {past_deadline: wait}\nroles: {builder: {models: [b]}}\n", "fail or requeue"},
		{"a rule names a known failure", ok + "roles: {builder: {models: [b]}}\nrules: [{failure: oops, scope: task, reason: r}]\n", `unknown failure "oops"`},
		{"a rule says why", ok + "roles: {builder: {models: [b]}}\nrules: [{failure: failed-step, scope: worker}]\n", "every rule says why"},
		{"a rule names a known scope", ok + "roles: {builder: {models: [b]}}\nrules: [{failure: failed-step, scope: everything, reason: r}]\n", `unknown scope "everything"`},
		{"the attempt's budgets are the builder's", ok + "roles: {builder: {models: [b]}, judge: {models: [b], budget_usd: 1}}\n", "budget_usd is for the builder's attempts"},
		{"the attempt's time limit is the builder's", ok + "roles: {builder: {models: [b]}, proposer: {models: [b], timeout: 5m}}\n", "timeout is for the builder's attempts"},
		{"a budget is not negative", ok + "budget_usd: -1\nroles: {builder: {models: [b]}}\n", "must not be negative"},
		{"an attempt's budget is not negative", ok + "roles: {builder: {models: [b], budget_tokens: -5}}\n", "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := night.ParsePipeline([]byte(tt.yaml))
			if !errors.Is(err, night.ErrBadPipeline) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a bad pipeline saying %q", err, tt.want)
			}
		})
	}
}

func TestRules(t *testing.T) {
	rs, err := night.RulesWith([]night.Rule{
		{Kind: night.SecondFailure, Scope: ledger.TaskScope, Reason: "we trust our builders"},
		{Kind: night.FailedStep, Role: ledger.Builder, Scope: ledger.WorkerScope, Reason: "strict builders"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		kind night.Kind
		role ledger.Role
		want ledger.Scope
	}{
		{"an override replaces the row for every role", night.SecondFailure, ledger.Builder, ledger.TaskScope},
		{"a role's own row wins over the row for every role", night.FailedStep, ledger.Builder, ledger.WorkerScope},
		{"other roles keep their own rows", night.FailedStep, ledger.Proposer, ledger.CallScope},
		{"a spend or quota refusal sends the worker out", night.QuotaRefused, ledger.Builder, ledger.WorkerScope},
		{"a worker's spent token budget sends it out", night.BudgetSpent, ledger.Judge, ledger.WorkerScope},
		{"an auth failure stops the system", night.AuthFailed, ledger.Builder, ledger.SystemScope},
		{"a configuration error stops the system", night.ConfigError, ledger.Proposer, ledger.SystemScope},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rs.Charge(tt.kind, tt.role)
			if r.Scope != tt.want || r.Reason == "" {
				t.Errorf("%s in %s is charged to %s (%q), want %s with a reason", tt.kind, tt.role, r.Scope, r.Reason, tt.want)
			}
		})
	}
}

// TestTheDocumentedPipelineFileParses: docs/night.md's pipeline file with
// every field is a pipeline the night reads: no key it documents is
// unknown, none misspelt.
func TestTheDocumentedPipelineFileParses(t *testing.T) {
	doc, err := os.ReadFile("../docs/night.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	at := strings.Index(s, "## The pipeline file")
	if at < 0 {
		t.Fatal("docs/night.md lost its section The pipeline file")
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(s[at:])
	if m == nil {
		t.Fatal("the section shows no pipeline file")
	}
	p, err := night.ParsePipeline([]byte(m[1]))
	if err != nil {
		t.Fatalf("the documented pipeline file: %v", err)
	}
	b := p.Roles[ledger.Builder]
	if p.BudgetUSD != 20 || p.ModelsFile != "prices.yaml" || b.BudgetUSD != 2 || b.BudgetTokens != 400000 || b.Timeout != night.Duration(45*time.Minute) {
		t.Errorf("the budgets read %v, %q, %+v", p.BudgetUSD, p.ModelsFile, b)
	}
}
