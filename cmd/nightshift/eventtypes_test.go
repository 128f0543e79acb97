package main

import (
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// constructed is every shape each event type's constructor makes: one
// entry per variant, with every optional field set somewhere, so that the
// fields they make together are the fields the document lists.
func constructed() []event.Event {
	usage := llm.Usage{InputTokens: 1200, OutputTokens: 80, CacheWriteTokens: 1000, CacheReadTokens: 100}
	exit := 0
	errFailed := errors.New("disk full")
	input := json.RawMessage(`{"path": "notes.md"}`)
	return []event.Event{
		event.NewStart(event.StartInfo{Run: "r1", Task: "t", Model: "m", MaxSteps: 20,
			Fields: []event.Field{{Key: "sandbox", Value: "bwrap"}, {Key: "judge", Value: "j"}, {Key: "judge_endpoint", Value: "in-process"},
				{Key: "fallback", Value: "f"}, {Key: "fallback_endpoint", Value: "in-process"}, {Key: "window", Value: "512 (server)"}}}),
		event.NewStart(event.StartInfo{Run: "r1", Task: "t", MaxSteps: 20, Resumed: true, FromStep: 5}),
		event.NewRetry(event.RetryInfo{Attempt: 1, Wait: time.Second, Cause: "retry-after", CauseWait: time.Second, Status: 429, Class: "rate-limited", Err: errFailed}),
		event.NewRetry(event.RetryInfo{Tool: "read_file", Attempt: 1, Wait: time.Second, Err: errFailed}),
		event.NewTurn(event.TurnInfo{StopReason: llm.ToolUseStop, Tools: []string{"read_file"}, Model: "m", Usage: usage, Cost: models.USD(0.01)}),
		event.NewTool(event.ToolInfo{ID: "toolu_1", Name: "read_file", Class: "read", Input: input, Decision: "allow", DecidedBy: "policy"}),
		event.NewTool(event.ToolInfo{ID: "toolu_1", Name: "read_file", Input: input, IsError: true, Result: "unknown tool"}),
		event.NewTool(event.ToolInfo{ID: "toolu_1", Name: "write_file", Class: "write", Input: input, IsError: true, Result: "unknown", Unknown: true}),
		event.NewTruncated(true, 8192),
		event.NewTruncated(false, 120),
		event.NewSchema("missing property"),
		event.NewVerify(event.VerifyInfo{Pass: true, Check: "judge"}),
		event.NewVerify(event.VerifyInfo{Check: "min-chars", Checks: []string{"min-chars"}, Reason: "min-chars post.md: 3 < 4"}),
		event.NewVerify(event.VerifyInfo{Check: "claims", Checks: []string{"claims"},
			Reason: "claims: you said post.md has 3,847 characters; it has 3,341", Detail: "claims: post.md has 3,341 characters, not 3,847",
			Claims: []event.ClaimInfo{
				{Kind: "chars", Text: "3,847 characters", Start: 20, End: 36, Path: "post.md", Said: "3,847 characters", Measured: "3,341 characters", Verdict: "false"},
				{Kind: "tests", Text: "the tests pass", Start: 40, End: 54, Said: "the tests pass", Verdict: "unchecked", Note: "the run called mcp_run, which the check cannot see into"},
			}}),
		event.NewRollback(event.RollbackInfo{Restored: []string{"a"}, Removed: []string{"b"}}),
		event.NewRollback(event.RollbackInfo{Kept: true}),
		event.NewRollback(event.RollbackInfo{Err: errFailed}),
		event.NewJournal("run_command", errFailed),
		event.NewLoop("read_file", 3, false),
		event.NewBudget(event.BudgetInfo{Limit: "usd", Max: 0.5, Spent: 0.48, Next: 0.03, Unknown: true, Reason: "over"}),
		event.NewCheckpoint(event.CheckpointInfo{Step: 5, Bytes: 2113, TotalBytes: 9000, Messages: 11}),
		event.NewCheckpoint(event.CheckpointInfo{Paused: true, Step: 5, Path: "/state/log.jsonl", TotalBytes: 9000}),
		event.NewCheckpoint(event.CheckpointInfo{Err: errFailed, Tool: "write_file"}),
		event.NewFallback(event.FallbackInfo{Reason: "exhausted", From: "a", To: "b", Until: time.Now(),
			Err: &llm.Error{Class: llm.Overloaded, Status: 529}}),
		event.NewFallback(event.FallbackInfo{Reason: "empty", To: "b", Until: time.Now(), Wasted: usage}),
		event.NewBreaker(event.BreakerInfo{State: "open", Endpoint: "api.anthropic.com", Failures: 5, Cool: 30 * time.Second}),
		event.NewBreaker(event.BreakerInfo{State: "probe", Endpoint: "api.anthropic.com"}),
		event.NewBreaker(event.BreakerInfo{State: "closed", Endpoint: "api.anthropic.com", OpenFor: 42 * time.Second}),
		event.NewCompact(event.CompactInfo{Window: 200000, Threshold: 0.8, BeforeTokens: 161000, AfterTokens: 9000,
			MessagesBefore: 142, MessagesAfter: 7, Kept: 6, Summary: "model", SummaryChars: 900, Usage: usage, Cost: models.USD(0.02)}),
		event.NewCompact(event.CompactInfo{Window: 200000, Threshold: 0.8, BeforeTokens: 161000, AfterTokens: 9000,
			MessagesBefore: 142, MessagesAfter: 7, Kept: 6, Summary: "mechanical", SummaryChars: 90, Err: errFailed}),
		event.NewCompact(event.CompactInfo{Window: 512, Threshold: 0.8, BeforeTokens: 498, AfterTokens: 160,
			MessagesBefore: 12, MessagesAfter: 3, Kept: 2, Summary: "model", SummaryChars: 90, Cause: "full"}),
		event.NewCut(event.CutInfo{ID: "toolu_1", Bytes: 250000, KeptBytes: 16600, Head: 12000, TailFrom: 245900}),
		event.NewCut(event.CutInfo{ID: "toolu_1", Err: errFailed}),
		event.NewDelegate(1, event.NewLoop("read_file", 3, true)),
		event.NewOutcome(event.OutcomeInfo{Outcome: "done", Reason: "passed", Steps: 6, Usage: usage, Cost: models.USD(0.0123), Exit: &exit}),
	}
}

// TestEventTypesAreTheDocumentedOnes holds package event and
// docs/events.md together: the constants name exactly the documented
// types, in the document's order, and each type's constructor makes
// only documented fields, of their documented JSON types, and between
// its variants every field the document lists for it.
func TestEventTypesAreTheDocumentedOnes(t *testing.T) {
	contract := loadEventContract(t, "../../docs/events.md")
	if diff := cmp.Diff(contract.order, event.Types()); diff != "" {
		t.Errorf("event.Types() and the types of docs/events.md differ (-document +code):\n%s", diff)
	}
	made := map[string]map[string]bool{}
	for _, e := range constructed() {
		e.TS, e.Run = time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC), "r1"
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if err := contract.checkFields(m); err != nil {
			t.Errorf("%s event %s%v", e.Type, e.Line(), err)
		}
		if made[e.Type] == nil {
			made[e.Type] = map[string]bool{}
		}
		for k := range m {
			if _, common := contract.common[k]; !common {
				made[e.Type][k] = true
			}
		}
	}
	for _, typ := range event.Types() {
		var never []string
		for f := range contract.types[typ] {
			if !made[typ][f] {
				never = append(never, f)
			}
		}
		sort.Strings(never)
		if made[typ] == nil {
			t.Errorf("no constructor makes a %s event here: add its variants to constructed()", typ)
		} else if len(never) > 0 {
			t.Errorf("docs/events.md lists fields of %s that its constructor never makes: %v", typ, never)
		}
	}
	for typ := range made {
		if !slices.Contains(event.Types(), typ) {
			t.Errorf("a constructor makes type %q, which event.Types() does not list", typ)
		}
	}
}
