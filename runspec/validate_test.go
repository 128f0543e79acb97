package runspec_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/runspec"
)

func ptr[T any](v T) *T { return &v }

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*runspec.Spec)
		want string // "" passes
	}{
		{"the zero spec is every default and runs", func(*runspec.Spec) {}, ""},
		{"a negative step limit names its flag and key", func(s *runspec.Spec) { s.MaxSteps = -1 }, "--max-steps (task file: max_steps) must not be negative, got -1"},
		{"a negative timeout reads as a duration", func(s *runspec.Spec) { s.Timeout = runspec.Duration(-60e9) }, "--timeout (task file: timeout) must not be negative, got -1m0s"},
		{"a NaN budget is refused", func(s *runspec.Spec) { s.BudgetUSD = math.NaN() }, "--budget-usd (task file: budget_usd) is NaN"},
		{"an infinite budget is refused", func(s *runspec.Spec) { s.BudgetUSD = math.Inf(1) }, "is +Inf"},
		{"retries of 0 are none, and pass", func(s *runspec.Spec) { s.Retries = ptr(0) }, ""},
		{"negative retries are refused", func(s *runspec.Spec) { s.Retries = ptr(-2) }, "--retries (task file: retries) must not be negative"},
		{"a loop limit of -1 is off, and passes", func(s *runspec.Spec) { s.LoopLimit = ptr(-1) }, ""},
		{"a loop limit below -1 is refused", func(s *runspec.Spec) { s.LoopLimit = ptr(-2) }, "-1 for off, got -2"},
		{"a negative call cap is refused", func(s *runspec.Spec) { s.MaxCallsPerReply = -1 }, "--max-calls-per-reply (task file: max_calls_per_reply) must not be negative"},
		{"an unknown provider is refused", func(s *runspec.Spec) { s.Provider = "antropic" }, `--provider: unknown provider "antropic": use anthropic, openai or scripted`},
		{"a typo'd provider of a judge is refused", func(s *runspec.Spec) { s.JudgeModel = "antropic:x" }, `did you mean anthropic:x?`},
		{"a local model's colon is a model name", func(s *runspec.Spec) { s.JudgeModel = "llama3:8b" }, ""},
		{"a fallback with spaces around it is refused", func(s *runspec.Spec) { s.FallbackModel = " x" }, "--fallback-model (task file: fallback_model)"},
		{"fallback_on is quota or nothing", func(s *runspec.Spec) { s.FallbackOn = "always" }, "the only choice is quota"},
		{"a bad sandbox mode is refused", func(s *runspec.Spec) { s.Sandbox = "docker" }, "--sandbox (task file: sandbox) is \"docker\""},
		{"a bad gate rule is refused", func(s *runspec.Spec) { s.Approve = runspec.List{"danger=maybe"} }, "--approve (task file: approve) \"danger=maybe\""},
		{"a bad check is refused", func(s *runspec.Spec) { s.Checks = runspec.List{"min-chars:x"} }, `check "min-chars:x": want min-chars:PATH:N`},
		{"a bad cap field is refused", func(s *runspec.Spec) { s.MaxTokensField = "max" }, "--max-tokens-field"},
		{"keep and rollback on interrupt do not go together", func(s *runspec.Spec) { s.Keep, s.RollbackOnInterrupt = true, true }, "--keep"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s runspec.Spec
			c.set(&s)
			err := s.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case c.want == "":
			case err == nil || !strings.Contains(err.Error(), c.want):
				t.Fatalf("err = %v, want %q", err, c.want)
			case !errors.Is(err, runspec.ErrInvalid):
				t.Errorf("err %v does not match ErrInvalid", err)
			}
		})
	}
}

// TestAnErrorNamesWhereItsValueWasWritten: the same field, named by each
// front end in its own words.
func TestAnErrorNamesWhereItsValueWasWritten(t *testing.T) {
	s := runspec.Spec{}
	s.MaxSteps = -3
	err := s.Validate()
	lines := map[string]int{"max_steps": 4}
	for _, c := range []struct {
		got, want string
	}{
		{err.Error(), "--max-steps (task file: max_steps) must not be negative, got -3"},
		{runspec.In(err, runspec.FromTaskFile, "t.yaml", lines).Error(), "t.yaml: max_steps must not be negative, got -3 (line 4)"},
		{runspec.InRole(err, "builder", "p.yaml", lines).Error(), "p.yaml: roles.builder.max_steps must not be negative, got -3 (line 4)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
