package night_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/verify"
)

// selfReport writes 6 characters and reports 4,000; told the real
// figure, it reports what it wrote.
const selfReport = `
turns:
  - tool_calls: [{name: write_file, input: {path: post.md, content: "智能体的错误"}}]
  - text: "post.md has 4,000 characters."
  - cases:
      - when: {in: last, contains: "it has 6"}
        text: "post.md has 6 characters."
      - text: "post.md has 4,000 characters."
`

// judgedSelfReport is selfReport with a judge that passes what it is
// shown.
const judgedSelfReport = `
scripts:
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns: [{text: "PASS\nfine"}]
  - name: worker
    turns:
      - tool_calls: [{name: write_file, input: {path: post.md, content: "智能体的错误"}}]
      - text: "post.md has 4,000 characters."
      - cases:
          - when: {in: last, contains: "it has 6"}
            text: "post.md has 6 characters."
          - text: "post.md has 4,000 characters."
`

// The night's builder gets the claims check through the run lifecycle,
// with no rule written for it, and can be told to go without it.
func TestTheBuilderChecksTheAnswersClaims(t *testing.T) {
	attempt := func(t *testing.T, v *verify.Verifier) (night.Attempt, []string) {
		t.Helper()
		sc, err := scripted.Parse([]byte(selfReport))
		if err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC))
		ev := &event.Recorder{}
		b := &night.AgentBuilder{Models: map[string]llm.Model{"w": scripted.New(sc, scripted.Config{Clock: clk})},
			Clock: clk, Events: ev, StateBase: t.TempDir(), Verifier: v}
		a := b.Attempt(context.Background(), night.Assignment{Worker: "w", Dir: t.TempDir(), MaxSteps: 10,
			Task: ledger.Task{Title: "a post", Body: "write post.md"}})
		var lines []string
		for _, e := range ev.Events() {
			if e.Type == event.Verify {
				lines = append(lines, e.Line())
			}
		}
		return a, lines
	}
	t.Run("on by default: the false count is failed with the real figure, the true one passes", func(t *testing.T) {
		a, lines := attempt(t, nil)
		want := []string{"[verify · FAIL: claims: post.md has 6 characters, not about 4,000]", "[verify · PASS]"}
		if a.Outcome != "done" || !slices.Equal(lines, want) {
			t.Errorf("outcome %s (%s), verify lines %q, want %q", a.Outcome, a.Reason, lines, want)
		}
	})
	t.Run("a verifier that says NoClaims goes without it", func(t *testing.T) {
		a, lines := attempt(t, &verify.Verifier{NoClaims: true})
		if a.Outcome != "done" || len(lines) != 1 || strings.Contains(lines[0], "claims") {
			t.Errorf("outcome %s, verify lines %q", a.Outcome, lines)
		}
	})
}

// A pipeline's builder role says claims: false, and its attempts go
// without the claims check; by default they have it, through the same
// verification as the role's checks and judge (Pipeline.builderVerify).
func TestThePipelinesBuilderRoleSwitchesTheClaimsCheck(t *testing.T) {
	for _, tc := range []struct {
		role, scenario string
		lines          []string
	}{
		// With the role's judge: the claims check FAILs first, and the
		// judge is asked only once the claims hold.
		{"builder: {models: [b1]}", judgedSelfReport, []string{"[verify · FAIL: claims: post.md has 6 characters, not about 4,000]", "[verify · PASS]"}},
		{"builder: {models: [b1], no_judge: true}", selfReport, []string{"[verify · FAIL: claims: post.md has 6 characters, not about 4,000]", "[verify · PASS]"}},
		{"builder: {models: [b1], no_judge: true, claims: false}", selfReport, []string{"[verify · PASS]"}},
	} {
		t.Run(tc.role, func(t *testing.T) {
			f := setup(t, "window: {start: \"22:00\", end: \"06:00\"}\nmodels:\n  b1: {provider: scripted, scenario: unused.yaml}\nroles:\n  "+tc.role+"\n")
			sc, err := scripted.Parse([]byte(tc.scenario))
			if err != nil {
				t.Fatal(err)
			}
			f.add("a post", 5)
			ev := &event.Recorder{}
			_, err = night.Run(context.Background(), night.Config{Pipeline: f.p, Ledger: f.l, Clock: f.clk, Events: ev, Idle: time.Hour,
				Models: map[string]llm.Model{"b1": scripted.New(sc, scripted.Config{Clock: f.clk})}})
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, e := range ev.Events() {
				if e.Type == event.Verify {
					lines = append(lines, e.Line())
				}
			}
			if !slices.Equal(lines, tc.lines) {
				t.Errorf("verify lines %q, want %q", lines, tc.lines)
			}
		})
	}
	t.Run("another role may not say it", func(t *testing.T) {
		_, err := night.ParsePipeline([]byte("window: {start: \"22:00\", end: \"06:00\"}\nmodels:\n  b1: {provider: scripted, scenario: x.yaml}\nroles:\n  builder: {models: [b1]}\n  proposer: {models: [b1], claims: false}\n"))
		if err == nil || !strings.Contains(err.Error(), "claims is for the builder") {
			t.Errorf("err = %v", err)
		}
	})
}
