package tracing_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/redact"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir/statedirtest"
	"github.com/nightshift-dev/nightshift/tracing"
	"github.com/nightshift-dev/nightshift/verify"
)

func TestMain(m *testing.M) {
	os.Exit(statedirtest.Run(m, "tracing"))
}

// aRun is a run with a retry (a 429), a tool error (a missing file) and a
// verify FAIL before its PASS.
const aRun = `
turns:
  - attempts:
      - {status: 429}
      - tool_calls: [{name: read_file, input: {path: missing.md}}]
  - tool_calls: [{name: write_file, input: {path: post.md, content: "short"}}]
  - text: Wrote post.md.
    usage: {input: 100, output: 10, cache_read: 80, cache_write: 5}
  - tool_calls: [{name: write_file, input: {path: post.md, content: "a post that is long enough"}}]
  - text: Wrote it again, longer.
`

// run runs aRun traced by t.
func run(tb testing.TB, tr *tracing.Tracer, content bool) *lifecycle.Result {
	return runWith(tb, tr, nil)
}

// runWith runs aRun traced by t, with a redactor.
func runWith(tb testing.TB, tr *tracing.Tracer, red *redact.Redactor) *lifecycle.Result {
	tb.Helper()
	sc, err := scripted.Parse([]byte(aRun))
	if err != nil {
		tb.Fatal(err)
	}
	fc := clock.NewFake(time.Date(2026, 11, 29, 22, 0, 0, 0, time.UTC))
	res, err := lifecycle.Run(context.Background(), lifecycle.Config{
		Dir: tb.TempDir(), Model: scripted.New(sc, scripted.Config{Clock: fc}), Spec: &runspec.Spec{Model: runspec.Model{ModelName: "m1"}}, Clock: fc,
		Verifier: &verify.Verifier{Rules: []verify.Rule{verify.MinChars("post.md", 10)}},
		Trace:    tr, Redact: red,
	}, "write post.md, ten characters at least; the key is sk-secret-1234")
	if err != nil {
		tb.Fatal(err)
	}
	if res.Outcome != agent.Done {
		tb.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
	}
	return res
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func events(s tracetest.SpanStub) []string {
	var out []string
	for _, e := range s.Events {
		out = append(out, e.Name)
	}
	return out
}

func TestARunsSpansFollowTheGenAIConventions(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	res := run(t, tracing.New(tp, tracing.Options{}), false)
	spans := exp.GetSpans()

	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	want := []string{"chat m1", "execute_tool read_file", "chat m1", "execute_tool write_file", "chat m1",
		"chat m1", "execute_tool write_file", "chat m1", "invoke_agent nightshift"}
	if !slices.Equal(names, want) {
		t.Fatalf("spans (in the order they ended) = %q, want %q", names, want)
	}
	root := spans[len(spans)-1]
	if root.Parent.IsValid() {
		t.Errorf("the run's span has a parent %v", root.Parent)
	}
	for _, s := range spans[:len(spans)-1] {
		if s.Parent.SpanID() != root.SpanContext.SpanID() || s.SpanContext.TraceID() != root.SpanContext.TraceID() {
			t.Errorf("%s is not a child of the run's span", s.Name)
		}
	}

	ra := attrs(root)
	for k, v := range map[attribute.Key]string{
		tracing.OperationName: "invoke_agent", tracing.RequestModel: "m1", tracing.ProviderName: "nightshift.scripted",
		tracing.Outcome: "done", tracing.RunID: res.RunID,
	} {
		if ra[k].AsString() != v {
			t.Errorf("run span %s = %q, want %q", k, ra[k].String(), v)
		}
	}
	if ra[tracing.UsageInputTokens].AsInt64() != res.Usage.InputTokens || ra[tracing.Steps].AsInt64() != 5 {
		t.Errorf("run span usage %v, steps %v; want %d, 5", ra[tracing.UsageInputTokens].String(), ra[tracing.Steps].String(), res.Usage.InputTokens)
	}
	if _, ok := ra[tracing.Task]; ok {
		t.Error("the task is on the run's span without --otel-content")
	}
	if got := events(root); !slices.Equal(got, []string{"verify", "verify"}) {
		t.Errorf("run span events %v, want the FAIL and the PASS", got)
	}
	fail := root.Events[0]
	var verdict string
	for _, kv := range fail.Attributes {
		if kv.Key == "nightshift.verify.verdict" {
			verdict = kv.Value.AsString()
		}
	}
	if verdict != "FAIL" {
		t.Errorf("first verify event's verdict = %q, want FAIL", verdict)
	}

	first := spans[0]
	fa := attrs(first)
	for k, v := range map[attribute.Key]string{
		tracing.OperationName: "chat", tracing.RequestModel: "m1", tracing.ProviderName: "nightshift.scripted", tracing.Role: "worker",
	} {
		if fa[k].AsString() != v {
			t.Errorf("chat span %s = %q, want %q", k, fa[k].String(), v)
		}
	}
	if got := fa[tracing.ResponseFinishReasons].AsStringSlice(); !slices.Equal(got, []string{"tool_use"}) {
		t.Errorf("finish reasons %v", got)
	}
	if _, ok := fa[tracing.UsageOutputTokens]; !ok {
		t.Error("the chat span has no output tokens")
	}
	if _, ok := fa[tracing.InputMessages]; ok {
		t.Error("messages are on the chat span without --otel-content")
	}
	if got := events(first); !slices.Equal(got, []string{"retry"}) {
		t.Errorf("first chat span's events %v, want its retry", got)
	}

	cached := attrs(spans[4])
	if cached[tracing.UsageCacheReadTokens].AsInt64() != 80 || cached[tracing.UsageCacheCreateTokens].AsInt64() != 5 || cached[tracing.UsageInputTokens].AsInt64() != 100 {
		t.Errorf("cache tokens on the chat span: %v", spans[4].Attributes)
	}
	if got := cached[tracing.ResponseFinishReasons].AsStringSlice(); !slices.Equal(got, []string{"end_turn"}) {
		t.Errorf("finish reasons %v", got)
	}

	toolErr := spans[1]
	ta := attrs(toolErr)
	if toolErr.Status.Code != codes.Error || ta[tracing.ToolName].AsString() != "read_file" || ta[tracing.ErrorType].AsString() != "tool_error" ||
		ta[tracing.GateDecision].AsString() != "allow" || ta[tracing.ToolClass].AsString() != "read" {
		t.Errorf("the failed tool call's span: status %v, attributes %v", toolErr.Status, toolErr.Attributes)
	}
	if spans[3].Status.Code == codes.Error {
		t.Errorf("a tool call that worked has status %v", spans[3].Status)
	}
}

func TestContentIsOnTheSpansOnlyWhenAskedFor(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	run(t, tracing.New(tp, tracing.Options{Content: true}), true)
	spans := exp.GetSpans()
	chat := attrs(spans[0])
	if in := chat[tracing.InputMessages].AsString(); !strings.Contains(in, "ten characters at least") || !strings.Contains(in, `"role":"user"`) {
		t.Errorf("input messages %q", in)
	}
	if out := chat[tracing.OutputMessages].AsString(); !strings.Contains(out, `"type":"tool_call"`) || !strings.Contains(out, "missing.md") {
		t.Errorf("output messages %q", out)
	}
	if sys := chat[tracing.SystemInstructions].AsString(); !strings.Contains(sys, "autonomous worker") {
		t.Errorf("system instructions %q", sys)
	}
	tl := attrs(spans[1])
	if !strings.Contains(tl[tracing.ToolCallArguments].AsString(), "missing.md") || tl[tracing.ToolCallResult].AsString() == "" {
		t.Errorf("tool span content: %v", spans[1].Attributes)
	}
	if !strings.Contains(attrs(spans[len(spans)-1])[tracing.Task].AsString(), "ten characters") {
		t.Error("the task is not on the run's span with content on")
	}
}

func TestFileExporterWritesOTLPJSONLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.jsonl")
	tr, stop, err := tracing.Start(context.Background(), tracing.Setup{File: path, Getenv: func(string) string { return "" }})
	if err != nil || tr == nil {
		t.Fatalf("Start: %v, %v", tr, err)
	}
	res := run(t, tr, false)
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(data))
	for _, want := range []string{`"resourceSpans"`, `"service.name"`, `"nightshift"`, `"invoke_agent nightshift"`, `"gen_ai.usage.input_tokens"`, res.RunID, `"schemaUrl":"` + tracing.SchemaURL + `"`} {
		if !strings.Contains(line, want) {
			t.Errorf("the file lacks %s", want)
		}
	}
	// OTLP JSON writes trace IDs in hex (not base64, as protobuf's JSON
	// mapping would).
	if i := strings.Index(line, `"traceId":"`); i < 0 || strings.ContainsAny(line[i+11:i+43], "+/=GHIJKLMNOPQRSTUVWXYZghijklmnopqrstuvwxyz") {
		t.Errorf("trace ID not in hex: %.60s", line[max(0, i):])
	}
}

func TestSpansCarryNoSecretTheRunRedacts(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	runWith(t, tracing.New(tp, tracing.Options{Content: true}), redact.New("sk-secret-1234"))
	var seen bool
	for _, s := range exp.GetSpans() {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), "sk-secret-1234") {
				t.Errorf("%s: %s holds the secret", s.Name, kv.Key)
			}
			if strings.Contains(kv.Value.String(), "ten characters at least") {
				seen = true
			}
		}
	}
	if !seen {
		t.Fatal("the content is not on the spans at all")
	}
	// Without the redactor the same spans do hold it: the check above
	// looks where the secret would be.
	exp.Reset()
	runWith(t, tracing.New(tp, tracing.Options{Content: true}), nil)
	found := false
	for _, s := range exp.GetSpans() {
		for _, kv := range s.Attributes {
			found = found || strings.Contains(kv.Value.String(), "sk-secret-1234")
		}
	}
	if !found {
		t.Error("the unredacted spans lack the secret: the test looks in the wrong place")
	}
}
