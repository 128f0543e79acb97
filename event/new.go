package event

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// The constructors below return an event with its Type, Detail and Data
// set; the emitter fills in TS, Run and Step. Each builds exactly the
// fields docs/events.md lists for its type, with the Go types the JSON
// schema promises (numbers as int or int64, decimals as float64).

// Field is one more field of a start event, also shown as key=value on
// its line.
type Field struct {
	Key, Value string
}

// StartInfo is what a start event says.
type StartInfo struct {
	// Run is the run's ID, shown on the line.
	Run string
	// Task is the task text; Model the model name sent.
	Task, Model string
	// MaxSteps is the step brake.
	MaxSteps int
	// Fields are more fields: how commands are confined (sandbox), where
	// the judge's calls go (judge, judge_endpoint). A field whose key the
	// event has already, or an empty key, is left out.
	Fields []Field
	// Resumed is true when a paused run goes on, after FromStep steps.
	Resumed  bool
	FromStep int
}

// NewStart returns the start event:
// `[start · run=<id> model=<name> max_steps=20 sandbox=bwrap resumed at step 5]`
// (model= only when the model is named).
func NewStart(s StartInfo) Event {
	data := map[string]any{"task": s.Task, "model": s.Model, "max_steps": s.MaxSteps}
	detail := "run=" + s.Run
	if s.Model != "" {
		detail += " model=" + s.Model
	}
	detail += fmt.Sprintf(" max_steps=%d", s.MaxSteps)
	for _, f := range s.Fields {
		if _, taken := data[f.Key]; taken || f.Key == "" || reserved(f.Key) {
			continue
		}
		data[f.Key] = f.Value
		detail += " " + f.Key + "=" + f.Value
	}
	if s.Resumed {
		data["resumed"], data["from_step"] = true, s.FromStep
		detail += fmt.Sprintf(" resumed at step %d", s.FromStep)
	}
	return Event{Run: s.Run, Type: Start, Detail: detail, Data: data}
}

// reserved reports the keys every line has, which Data must not hold.
func reserved(k string) bool { return k == "ts" || k == "run" || k == "step" || k == "type" }

// RetryInfo is what a retry event says.
type RetryInfo struct {
	// Attempt is the retry's number, 1 for the first.
	Attempt int
	// Wait is the wait before it.
	Wait time.Duration
	// Cause says what decided the wait: "retry-after", "reset",
	// "stalled", "backoff" or "" (a tool's retry). CauseWait is what the
	// cause named: the server's wait, how long a stalled stream had sent
	// nothing, or the backoff before jitter.
	Cause     string
	CauseWait time.Duration
	// Status is the HTTP status, or 0.
	Status int
	// Class is the failure's class ("" when it has none).
	Class string
	// Err is the failure.
	Err error
	// Tool, for a read-class tool's retry, names the tool.
	Tool string
}

// NewRetry returns the retry event of a model call,
// `[retry · status=429 attempt=1 wait=1020ms retry-after=1s]`, or of a
// read-class tool (Tool set), `[retry · tool=read_file attempt=1 wait=1000ms]`.
func NewRetry(r RetryInfo) Event {
	wait := r.Wait.Milliseconds()
	data := map[string]any{"attempt": r.Attempt, "wait_ms": wait}
	if r.Err != nil {
		data["error"] = r.Err.Error()
	}
	if r.Tool != "" {
		data["tool"] = r.Tool
		return Event{Type: Retry, Detail: fmt.Sprintf("tool=%s attempt=%d wait=%dms", r.Tool, r.Attempt, wait), Data: data}
	}
	data["class"] = r.Class
	if r.Cause != "" {
		data["cause"] = r.Cause
	}
	if r.Status != 0 {
		data["status"] = r.Status
	}
	var b strings.Builder
	if r.Status != 0 {
		b.WriteString("status=" + strconv.Itoa(r.Status))
	} else {
		b.WriteString("error=" + cmp.Or(r.Class, "unknown"))
	}
	fmt.Fprintf(&b, " attempt=%d wait=%dms", r.Attempt, wait)
	if r.Cause != "" {
		b.WriteString(" " + r.Cause + "=" + r.CauseWait.Round(time.Millisecond).String())
	}
	return Event{Type: Retry, Detail: b.String(), Data: data}
}

// TurnInfo is what a turn event says.
type TurnInfo struct {
	// StopReason is why the reply ended.
	StopReason llm.StopReason
	// Tools are the tools the reply called, in order.
	Tools []string
	// Model is the model that answered ("" leaves the field out).
	Model string
	// Usage is the call's usage, Cost its cost (models.Unknown when the
	// model table cannot price it).
	Usage llm.Usage
	Cost  models.Cost
}

// NewTurn returns the turn event: `[turn · tool_use=read_file,write_file]`,
// `[turn · end_turn]`.
func NewTurn(t TurnInfo) Event {
	detail := string(t.StopReason)
	if len(t.Tools) > 0 {
		detail += "=" + strings.Join(t.Tools, ",")
	}
	data := map[string]any{"stop_reason": string(t.StopReason), "tools": nonNil(t.Tools)}
	if t.Model != "" {
		// The model of every step: with a fallback, not every step is
		// the primary's.
		data["model"] = t.Model
	}
	addUsage(data, t.Usage, t.Cost)
	return Event{Type: Turn, Detail: detail, Data: data}
}

// addUsage adds a usage's fields: the tokens, cache writes and reads
// included, and cost_usd only when the cost is known, since an unknown
// cost must never read as free.
func addUsage(data map[string]any, u llm.Usage, c models.Cost) {
	data["input_tokens"], data["output_tokens"] = u.InputTokens, u.OutputTokens
	data["cache_write_tokens"], data["cache_read_tokens"] = u.CacheWriteTokens, u.CacheReadTokens
	if usd, ok := c.USD(); ok {
		data["cost_usd"] = usd
	}
}

// The gate's decisions as a tool event names them, where the line
// depends on them.
const (
	decisionPark = "park"
	decisionDeny = "deny"
)

// ToolInfo is what a tool event says.
type ToolInfo struct {
	// ID is the tool-use ID; Name the tool the model asked for.
	ID, Name string
	// Class is the tool's class, "" for a tool the run does not have.
	Class string
	// Input is the call's input, shown compacted.
	Input json.RawMessage
	// Decision and DecidedBy are the gate's, when a gate decided.
	Decision, DecidedBy string
	// IsError is true when the result went back to the model as an error;
	// Result is its text, of which the event keeps the first line. A
	// call the gate did not let run has no Result.
	IsError bool
	Result  string
	// NotRun says why a call that was not denied did not run (its
	// workspace capture failed, the gate could not decide), else "".
	NotRun string
	// Unknown is true for a resumed run's call whose outcome was never
	// recorded.
	Unknown bool
}

// NewTool returns the tool event of one call: `[tool · write_file {"path":…}]`,
// `[tool · search_file error: unknown tool …]`, `[tool · run_command denied
// by policy]`, `[tool · run_command parked: waiting for a person]`,
// `[tool · run_command not run: …]`, `[tool · write_file outcome unknown: restored to before it]`.
func NewTool(t ToolInfo) Event {
	data := map[string]any{"id": t.ID, "tool": t.Name, "input": summarize(t.Input, 200)}
	if t.Class != "" {
		data["class"] = t.Class
	}
	if t.Decision != "" {
		data["decision"], data["decided_by"] = t.Decision, t.DecidedBy
	}
	if t.Decision != decisionPark {
		// A parked call has no result yet.
		data["is_error"] = t.IsError
	}
	if t.IsError && t.Result != "" {
		data["result"] = firstLine(t.Result)
	}
	if t.Unknown {
		data["unknown"] = true
	}
	var detail string
	switch {
	case t.Unknown:
		detail = t.Name + " outcome unknown: restored to before it"
	case t.Decision == decisionPark:
		detail = t.Name + " parked: waiting for a person"
	case t.NotRun != "":
		detail = t.Name + " not run: " + t.NotRun
	case t.Decision == decisionDeny:
		detail = fmt.Sprintf("%s denied by %s", t.Name, t.DecidedBy)
	case t.IsError:
		detail = t.Name + " error: " + firstLine(t.Result)
	default:
		detail = t.Name + " " + summarize(t.Input, 80)
	}
	return Event{Type: Tool, Detail: detail, Data: data}
}

// firstLine is a message's first line, cut to 160 characters.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return truncate(s, 160)
}

// summarize renders a tool input compactly.
func summarize(in json.RawMessage, n int) string {
	return truncate(strings.Join(strings.Fields(string(in)), " "), n)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// NewTruncated returns the truncated event of a reply cut off by
// max_tokens: regenerated whole with a new cap of n tokens
// (`[truncated · regenerate max_tokens=8192]`), or continued with n
// characters kept from this part (`[truncated · continue]`).
func NewTruncated(regenerate bool, n int) Event {
	if regenerate {
		return Event{Type: Truncated, Detail: fmt.Sprintf("regenerate max_tokens=%d", n),
			Data: map[string]any{"action": "regenerate", "max_tokens": n}}
	}
	return Event{Type: Truncated, Detail: "continue", Data: map[string]any{"action": "continue", "chars": n}}
}

// NewSchema returns the schema event of a final answer that failed the
// output schema: `[schema · invalid: <message>]`.
func NewSchema(problem string) Event {
	return Event{Type: Schema, Detail: "invalid: " + problem, Data: map[string]any{"error": problem}}
}

// VerifyInfo is what a verify event says.
type VerifyInfo struct {
	// Pass is the verdict; Check the check that decided it.
	Pass  bool
	Check string
	// Checks are, on FAIL, every check that failed; Reason the reason
	// fed back to the worker, and Detail the same as the record says it
	// (where a check words it differently for the worker, as the claims
	// check does; empty means Reason).
	Checks         []string
	Reason, Detail string
	// Claims are the claims the claims check found in the answer.
	Claims []ClaimInfo
}

// ClaimInfo is one claim of the final answer, as the claims check found
// it.
type ClaimInfo struct {
	// Kind is what the claim is about (chars, written, tests, ...);
	// Text the answer's words, at byte offsets Start to End.
	Kind, Text string
	Start, End int
	// Path is the file it is about, if any; Said what the answer claims,
	// Measured what code found, Verdict true, false or unchecked, and
	// Note why a claim could not be checked.
	Path, Said, Measured, Verdict, Note string
}

// NewVerify returns the verify event: `[verify · PASS]`, or
// `[verify · FAIL: <detail>]` with every check that failed, and the
// claims the claims check found.
func NewVerify(v VerifyInfo) Event {
	data := map[string]any{"verdict": "PASS", "check": v.Check}
	detail := "PASS"
	if !v.Pass {
		d := v.Detail
		if d == "" {
			d = v.Reason
		}
		data["verdict"], data["checks"], data["reason"] = "FAIL", nonNil(v.Checks), v.Reason
		detail = "FAIL: " + d
	}
	if len(v.Claims) > 0 {
		claims := make([]any, len(v.Claims))
		for i, c := range v.Claims {
			m := map[string]any{"kind": c.Kind, "text": c.Text, "span": []any{c.Start, c.End}, "verdict": c.Verdict}
			for k, s := range map[string]string{"path": c.Path, "said": c.Said, "measured": c.Measured, "note": c.Note} {
				if s != "" {
					m[k] = s
				}
			}
			claims[i] = m
		}
		data["claims"] = claims
	}
	return Event{Type: Verify, Detail: detail, Data: data}
}

// RollbackInfo is what a rollback event says.
type RollbackInfo struct {
	// The files given back, removed, recreated, and changed by something
	// else (left as they are).
	Restored, Removed, Recreated, Conflicts []string
	// Kept is true when --keep left the changes in place.
	Kept bool
	// Err is a rollback that failed.
	Err error
}

// NewRollback returns the rollback event:
// `[rollback · restored=1 removed=2 recreated=0 conflicts=0]`,
// `[rollback · kept: --keep leaves the changes in place]`,
// `[rollback · FAILED: <error>]`.
func NewRollback(r RollbackInfo) Event {
	switch {
	case r.Kept:
		return Event{Type: Rollback, Detail: "kept: --keep leaves the changes in place", Data: map[string]any{"kept": true}}
	case r.Err != nil:
		return Event{Type: Rollback, Detail: "FAILED: " + r.Err.Error(), Data: map[string]any{"error": r.Err.Error()}}
	}
	return Event{Type: Rollback,
		Detail: fmt.Sprintf("restored=%d removed=%d recreated=%d conflicts=%d", len(r.Restored), len(r.Removed), len(r.Recreated), len(r.Conflicts)),
		Data: map[string]any{
			"restored": nonNil(r.Restored), "removed": nonNil(r.Removed), "recreated": nonNil(r.Recreated),
			"conflicts": nonNil(r.Conflicts),
		}}
}

// NewJournal returns the journal event of a workspace that could not be
// captured after the tool ran: `[journal · after run_command: <error>]`.
func NewJournal(tool string, err error) Event {
	return Event{Type: Journal, Detail: "after " + tool + ": " + err.Error(), Data: map[string]any{"error": err.Error()}}
}

// NewLoop returns the loop event of a call repeated count times in a
// row with the same result: the model warned
// (`[loop · warned: read_file repeated 3 times]`) or, with stop, the run
// stopped.
func NewLoop(tool string, count int, stop bool) Event {
	verb, action := "warned", "warn"
	if stop {
		verb, action = "stopped", "stop"
	}
	return Event{Type: Loop, Detail: fmt.Sprintf("%s: %s repeated %d times", verb, tool, count),
		Data: map[string]any{"tool": tool, "count": count, "action": action}}
}

// BudgetInfo is what a budget event says.
type BudgetInfo struct {
	// Limit is "usd" or "tokens"; Max the budget, Spent what was spent,
	// Next the estimate of the call not made.
	Limit            string
	Max, Spent, Next float64
	// Unknown is true when a dollar budget could not be kept.
	Unknown bool
	// Reason says it in words.
	Reason string
}

// NewBudget returns the budget event of a call not made:
// `[budget · stop: <reason>]`.
func NewBudget(b BudgetInfo) Event {
	data := map[string]any{"limit": b.Limit, "max": b.Max, "spent": b.Spent, "next": b.Next}
	if b.Unknown {
		data["unknown"] = true
	}
	return Event{Type: Budget, Detail: "stop: " + b.Reason, Data: data}
}

// CheckpointInfo is what a checkpoint event says.
type CheckpointInfo struct {
	// Step is the step saved; Bytes the size of its record, TotalBytes
	// the log's, Messages the conversation's length so far.
	Step       int
	Bytes      int64
	TotalBytes int64
	Messages   int
	// Paused is true when the run paused after Step steps with its
	// checkpoint at Path kept.
	Paused bool
	Path   string
	// Err is a checkpoint that could not be written; Tool the call whose
	// result it could not record, if it was one.
	Err  error
	Tool string
}

// NewCheckpoint returns the checkpoint event: `[checkpoint · step=5
// bytes=2113]`, `[checkpoint · paused at step 5: resume, or recover to
// undo]`, `[checkpoint · FAILED: <error>]`.
func NewCheckpoint(c CheckpointInfo) Event {
	switch {
	case c.Err != nil:
		data := map[string]any{"error": c.Err.Error()}
		if c.Tool != "" {
			data["tool"] = c.Tool
		}
		return Event{Type: Checkpoint, Detail: "FAILED: " + c.Err.Error(), Data: data}
	case c.Paused:
		return Event{Type: Checkpoint, Detail: fmt.Sprintf("paused at step %d: resume, or recover to undo", c.Step),
			Data: map[string]any{"action": "pause", "steps": c.Step, "path": c.Path, "total_bytes": c.TotalBytes}}
	}
	return Event{Type: Checkpoint, Detail: fmt.Sprintf("step=%d bytes=%d", c.Step, c.Bytes),
		Data: map[string]any{"bytes": c.Bytes, "total_bytes": c.TotalBytes, "messages": c.Messages}}
}

// FallbackInfo is what a fallback event says.
type FallbackInfo struct {
	// Reason is "exhausted", "empty" or "quota".
	Reason string
	// From is the primary model ("" for the judge's calls, whose request
	// names it), To the fallback.
	From, To string
	// Until is when the primary is tried again.
	Until time.Time
	// Err is the primary's failure (nil for "empty"); its class and HTTP
	// status are read from it.
	Err error
	// Wasted is the usage of the primary's empty answers.
	Wasted llm.Usage
}

// NewFallback returns the fallback event of a call sent to the fallback
// model: `[fallback · claude-sonnet-5-5 → gpt-6-luna: exhausted
// (overloaded); claude-sonnet-5-5 rests until 02:01:05]`.
func NewFallback(f FallbackInfo) Event {
	data := map[string]any{"reason": f.Reason, "to": f.To, "until": f.Until.UTC().Format(time.RFC3339)}
	if f.From != "" {
		data["from"] = f.From
	}
	why := f.Reason
	if f.Reason == "empty" {
		why = "empty answer twice"
	}
	if f.Err != nil {
		data["error"] = f.Err.Error()
		// A failure without a class (an open circuit breaker's) has
		// none to name.
		if class := llm.ClassOf(f.Err); class != "" {
			data["class"] = string(class)
			why += " (" + string(class) + ")"
		}
		var le *llm.Error
		if errors.As(f.Err, &le) && le.Status != 0 {
			data["status"] = le.Status
		}
	}
	if f.Wasted != (llm.Usage{}) {
		data["wasted_input_tokens"], data["wasted_output_tokens"] = f.Wasted.InputTokens, f.Wasted.OutputTokens
	}
	from := cmp.Or(f.From, "primary")
	return Event{Type: Fallback, Data: data, Detail: fmt.Sprintf("%s → %s: %s; %s rests until %s",
		from, cmp.Or(f.To, "fallback"), why, from, f.Until.UTC().Format(time.TimeOnly))}
}

// BreakerInfo is what a breaker event says.
type BreakerInfo struct {
	// State is "open", "probe" or "closed".
	State string
	// Endpoint is the endpoint's host.
	Endpoint string
	// Failures is the outage failures in a row that opened it (open).
	Failures int
	// Cool is the cool-off before a probe (open).
	Cool time.Duration
	// OpenFor is how long it was open (closed).
	OpenFor time.Duration
}

// NewBreaker returns the breaker event of an endpoint's circuit breaker
// (package breaker): `[breaker · open endpoint=api.anthropic.com
// failures=5 cool=30s]`, `[breaker · probe endpoint=api.anthropic.com]`,
// `[breaker · closed endpoint=api.anthropic.com open_for=42s]`.
func NewBreaker(b BreakerInfo) Event {
	data := map[string]any{"state": b.State, "endpoint": b.Endpoint}
	detail := b.State + " endpoint=" + b.Endpoint
	switch b.State {
	case "open":
		data["failures"], data["cool"] = b.Failures, b.Cool.Milliseconds()
		detail += fmt.Sprintf(" failures=%d cool=%s", b.Failures, span(b.Cool))
	case "closed":
		data["open_for"] = b.OpenFor.Milliseconds()
		detail += " open_for=" + span(b.OpenFor)
	}
	return Event{Type: Breaker, Data: data, Detail: detail}
}

// span prints a breaker's duration as a person reads it: whole seconds
// from a second on (42s, 1m30s), milliseconds below.
func span(d time.Duration) string {
	if d >= time.Second {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}

// CompactInfo is what a compact event says.
type CompactInfo struct {
	// Window is the context window; Threshold the share of it that set
	// the compaction off.
	Window    int
	Threshold float64
	// BeforeTokens and AfterTokens are the next call's estimated prompt
	// before and after; MessagesBefore and MessagesAfter the history's
	// length; Kept the latest messages kept as they were.
	BeforeTokens, AfterTokens     int64
	MessagesBefore, MessagesAfter int
	Kept                          int
	// Summary is "model", or "mechanical" when the model wrote none;
	// SummaryChars its length.
	Summary      string
	SummaryChars int
	// Usage and Cost are the summary call's.
	Usage llm.Usage
	Cost  models.Cost
	// Err is the summary call's refusal (a bad request: the history had
	// outgrown the window already), when the history was compacted
	// without a summary; nil otherwise.
	Err error
	// Cause is why: "" when the estimate passed the threshold, "full"
	// when a reply stopped at the window, "overflow" when the server
	// refused the prompt as over its window.
	Cause string
}

// NewCompact returns the compact event of a history replaced by a
// summary: `[compact · ~161000 → ~9000 tokens of 200000; 142 messages → 7]`.
func NewCompact(c CompactInfo) Event {
	data := map[string]any{
		"window": c.Window, "threshold": c.Threshold, "before_tokens": c.BeforeTokens, "after_tokens": c.AfterTokens,
		"messages_before": c.MessagesBefore, "messages_after": c.MessagesAfter, "kept": c.Kept,
		"summary": c.Summary, "summary_chars": c.SummaryChars,
	}
	addUsage(data, c.Usage, c.Cost)
	detail := fmt.Sprintf("~%d → ~%d tokens of %d; %d messages → %d",
		c.BeforeTokens, c.AfterTokens, c.Window, c.MessagesBefore, c.MessagesAfter)
	switch c.Cause {
	case "full":
		data["cause"] = c.Cause
		detail += "; a reply stopped at the window"
	case "overflow":
		data["cause"] = c.Cause
		detail += "; the server refused the prompt as over its window"
	}
	if c.Err != nil {
		data["error"] = c.Err.Error()
		detail += "; no summary: " + c.Err.Error()
	}
	return Event{Type: Compact, Data: data, Detail: detail}
}

// CutInfo is what a cut event says.
type CutInfo struct {
	// ID is the tool-use ID ("" for a failure not about one result).
	ID string
	// Bytes is the result's size, KeptBytes what the history holds: the
	// first Head bytes and the tail from TailFrom.
	Bytes, KeptBytes, Head, TailFrom int
	// Err is a result that could not be kept aside: it stays whole.
	Err error
}

// NewCut returns the cut event of a tool result over the cap:
// `[cut · toolu_01A… 250000 bytes → 16600]`, `[cut · FAILED: <error>]`.
func NewCut(c CutInfo) Event {
	if c.Err != nil {
		data := map[string]any{"error": c.Err.Error()}
		if c.ID != "" {
			data["id"] = c.ID
		}
		return Event{Type: Cut, Detail: "FAILED: " + c.Err.Error(), Data: data}
	}
	return Event{Type: Cut, Detail: fmt.Sprintf("%s %d bytes → %d", c.ID, c.Bytes, c.KeptBytes),
		Data: map[string]any{"id": c.ID, "bytes": c.Bytes, "kept_bytes": c.KeptBytes, "head": c.Head, "tail_from": c.TailFrom}}
}

// NewDelegate wraps an event of the n-th sub-agent of a run:
// `[delegate · #1 tool · read_file {"path":"notes.md"}]`. Its time and
// step are the sub-agent's; the emitter sets the run.
func NewDelegate(n int, child Event) Event {
	fields := child.Data
	if fields == nil {
		fields = map[string]any{}
	}
	return Event{TS: child.TS, Step: child.Step, Type: Delegate,
		Detail: fmt.Sprintf("#%d %s · %s", n, child.Type, child.Detail),
		Data:   map[string]any{"delegate": n, "event": child.Type, "delegate_run": child.Run, "detail": child.Detail, "data": fields}}
}

// OutcomeInfo is what an outcome event says.
type OutcomeInfo struct {
	// Outcome is the run's outcome; Reason says why, in words.
	Outcome, Reason string
	// Steps are the worker's model calls.
	Steps int
	// Usage is the run's total; Cost its cost (models.Unknown when any
	// call's is unknown).
	Usage llm.Usage
	Cost  models.Cost
	// Exit is the exit status the command returns for it; nil leaves the
	// field out (a run a Go program makes has no exit table).
	Exit *int
}

// NewOutcome returns the outcome event:
// `[outcome · done steps=6 tokens=1234 in/567 out cost=$0.0123]`.
func NewOutcome(o OutcomeInfo) Event {
	data := map[string]any{"outcome": o.Outcome, "steps": o.Steps, "reason": o.Reason}
	addUsage(data, o.Usage, o.Cost)
	if o.Exit != nil {
		data["exit"] = *o.Exit
	}
	return Event{Type: Outcome,
		Detail: fmt.Sprintf("%s steps=%d tokens=%d in/%d out cost=%s", o.Outcome, o.Steps, o.Usage.InputTokens, o.Usage.OutputTokens, o.Cost),
		Data:   data}
}

// nonNil makes an empty list a JSON [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
