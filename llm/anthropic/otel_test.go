package anthropic_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/anthropic"
)

// A program that registers an OpenTelemetry provider gets the model
// call's span from nightshift's tracing only: the SDK makes none of its
// own and sends no trace headers for one.
func TestTheSDKMakesNoSpanOfItsOwn(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTracerProvider(prevTP); otel.SetTextMapPropagator(prevProp) })

	var traceparent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		traceparent = r.Header.Get("Traceparent")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`))
	}))
	defer srv.Close()
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, span := tp.Tracer("caller").Start(context.Background(), "caller")
	_, err = m.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	span.End()
	if err != nil {
		t.Fatal(err)
	}
	if spans := exp.GetSpans(); len(spans) != 1 || spans[0].Name != "caller" {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Errorf("spans %q, want the caller's only", names)
	}
	if traceparent != "" {
		t.Errorf("the request carried traceparent %q", traceparent)
	}
}
