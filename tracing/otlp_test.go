package tracing_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/nightshift-dev/nightshift/tracing"
)

// collector is an OTLP/HTTP receiver: it keeps the requests it was sent.
type collector struct {
	mu    sync.Mutex
	paths []string
	types []string
	reqs  []*coltracepb.ExportTraceServiceRequest
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.paths = append(c.paths, r.URL.Path)
	c.types = append(c.types, r.Header.Get("Content-Type"))
	c.reqs = append(c.reqs, &req)
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out) //nolint:errcheck
}

func (c *collector) spans() []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*tracepb.Span
	for _, r := range c.reqs {
		for _, rs := range r.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

func TestTracesGoToTheOTLPEndpointOverHTTP(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "nightshift-test")
	tr, stop, err := tracing.Start(context.Background(), tracing.Setup{})
	if err != nil || tr == nil {
		t.Fatalf("the endpoint variable alone should turn traces on: %v, %v", tr, err)
	}
	res := run(t, tr, false)
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(c.paths) == 0 || c.paths[0] != "/v1/traces" || c.types[0] != "application/x-protobuf" {
		t.Fatalf("requests to %v as %v, want /v1/traces as protobuf", c.paths, c.types)
	}
	rs := c.reqs[0].ResourceSpans[0]
	var service string
	for _, kv := range rs.Resource.Attributes {
		if kv.Key == "service.name" {
			service = kv.Value.GetStringValue()
		}
	}
	if service != "nightshift-test" {
		t.Errorf("service.name = %q, want OTEL_SERVICE_NAME's", service)
	}
	if ss := rs.ScopeSpans[0]; ss.Scope.Name != tracing.Name || ss.SchemaUrl != tracing.SchemaURL {
		t.Errorf("scope %q schema %q", ss.Scope.Name, ss.SchemaUrl)
	}
	spans := c.spans()
	var names []string
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		names = append(names, s.Name)
		byID[string(s.SpanId)] = s
	}
	if !slices.Contains(names, "invoke_agent nightshift") || !slices.Contains(names, "execute_tool read_file") || len(spans) != 9 {
		t.Fatalf("spans %v", names)
	}
	for _, s := range spans {
		if s.Name == "invoke_agent nightshift" {
			continue
		}
		if p := byID[string(s.ParentSpanId)]; p == nil || p.Name != "invoke_agent nightshift" {
			t.Errorf("%s's parent is not the run's span", s.Name)
		}
		if s.Name == "chat m1" && s.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("chat span kind %v, want client", s.Kind)
		}
	}
	for _, s := range spans {
		if s.Name != "invoke_agent nightshift" {
			continue
		}
		got := map[string]string{}
		for _, kv := range s.Attributes {
			got[kv.Key] = kv.Value.String()
		}
		if got["nightshift.run.id"] == "" || got["gen_ai.operation.name"] == "" || got["gen_ai.usage.input_tokens"] == "" {
			t.Errorf("run span attributes %v", got)
		}
		_ = res
	}
}

func TestTracingIsOffUnlessAskedFor(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"no variables":                       {},
		"OTEL_TRACES_EXPORTER=none":          {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"},
		"OTEL_SDK_DISABLED=true":             {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"},
		"only a metrics endpoint is not one": {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://x"},
	} {
		t.Run(name, func(t *testing.T) {
			tr, _, err := tracing.Start(context.Background(), tracing.Setup{Getenv: func(k string) string { return env[k] }})
			if err != nil || tr != nil {
				t.Fatalf("tracer %v, err %v; want none", tr, err)
			}
		})
	}
	t.Run("an exporter nightshift does not have is a usage error", func(t *testing.T) {
		for _, env := range []map[string]string{
			{"OTEL_TRACES_EXPORTER": "zipkin"},
			{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		} {
			if _, _, err := tracing.Start(context.Background(), tracing.Setup{Getenv: func(k string) string { return env[k] }}); err == nil {
				t.Errorf("%v: no error", env)
			}
		}
	})
}
