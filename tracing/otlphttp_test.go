package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// someSpans are spans with every kind of value OTLP carries: attributes
// of each type (a NaN, an empty string, markup; with bad, text that is
// not UTF-8, which protobuf refuses), events, links, a status, a parent,
// a resource and a scope.
func someSpans(bad bool) []sdktrace.ReadOnlySpan {
	tid := trace.TraceID{0x0a, 0xf7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0xff}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}, TraceFlags: trace.FlagsSampled})
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{9, 9, 9, 9, 9, 9, 9, 0xab}, Remote: true})
	at := time.Unix(1764662400, 123456789)
	attrs := []attribute.KeyValue{
		attribute.String("s", "a <b> & \"c\" \u2028"), attribute.String("empty", ""), attribute.Bool("t", true), attribute.Bool("f", false),
		attribute.Int64("big", math.MaxInt64), attribute.Int("zero", 0), attribute.Float64("pi", 3.25), attribute.Float64("nan", math.NaN()),
		attribute.Float64("inf", math.Inf(-1)), attribute.Float64("e", 1e21), attribute.StringSlice("ss", []string{"x", ""}),
		attribute.Int64Slice("is", []int64{-1, 2}), attribute.BoolSlice("bs", []bool{true}), attribute.Float64Slice("fs", []float64{0.5}),
	}
	if bad {
		attrs = append(attrs, attribute.String("bad", "\xff\xfe"))
	}
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "nightshift"), attribute.Int("n", 3))
	stubs := tracetest.SpanStubs{
		{
			Name: "invoke_agent nightshift", SpanContext: sc, Parent: parent, SpanKind: trace.SpanKindClient,
			StartTime: at, EndTime: at.Add(time.Second), Attributes: attrs,
			Events: []sdktrace.Event{{Name: "retry", Time: at.Add(time.Millisecond), Attributes: attrs[:3], DroppedAttributeCount: 2}},
			Links:  []sdktrace.Link{{SpanContext: parent, Attributes: attrs[4:6]}, {SpanContext: sc}},
			Status: sdktrace.Status{Code: codes.Error, Description: "it broke"}, DroppedAttributes: 1, DroppedEvents: 2, DroppedLinks: 3,
			Resource: res, InstrumentationScope: instrumentation.Scope{Name: Name, Version: "1.0", SchemaURL: SchemaURL, Attributes: attribute.NewSet(attribute.String("k", "v"))},
		},
		{Name: "", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{7}}), Resource: res},
		{Name: "other scope", SpanContext: sc, StartTime: at, Resource: resource.Empty(), InstrumentationScope: instrumentation.Scope{Name: "x"}},
	}
	return stubs.Snapshots()
}

// bodies is an http.RoundTripper that keeps the requests' bodies.
type bodies struct {
	mu   sync.Mutex
	seen [][]byte
}

func (b *bodies) RoundTrip(r *http.Request) (*http.Response, error) {
	data, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.seen = append(b.seen, data)
	b.mu.Unlock()
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

// TestOTLPJSONIsTheSDKs: the --otel-file lines and the http/json bodies
// are byte for byte what the SDK's own OTLP/HTTP exporter encodes, which
// nightshift used before (issue 23, item 10: it linked grpc). The SDK
// groups spans by resource and scope through maps, so with several of
// them the groups come in any order, in its output as in ours: those
// are compared once their groups are sorted, and one resource with one
// scope byte for byte.
func TestOTLPJSONIsTheSDKs(t *testing.T) {
	spans := someSpans(true)
	t.Run("one resource, one scope", func(t *testing.T) {
		ours, sdk := bothJSON(t, spans[:1])
		if ours != sdk {
			i := 0
			for i < len(ours) && i < len(sdk) && ours[i] == sdk[i] {
				i++
			}
			t.Fatalf("the line differs from byte %d:\n ours: %.300s\n  sdk: %.300s", i, ours[max(0, i-80):], sdk[max(0, i-80):])
		}
		if !strings.Contains(ours, `"traceId":"0AF70102030405060708090A0B0C0DFF"`) {
			t.Errorf("no hex trace ID:\n%s", ours)
		}
	})
	t.Run("two resources, three scopes", func(t *testing.T) {
		ours, sdk := bothJSON(t, spans)
		if got, want := groupsSorted(t, ours), groupsSorted(t, sdk); got != want {
			t.Fatalf("the groups differ:\n ours: %s\n  sdk: %s", got, want)
		}
	})
}

// TestOTLPJSONOfEveryValueIsTheSDKs holds otlpJSON to the SDK's
// http/json encoding for every kind of value and group allSpans has.
func TestOTLPJSONOfEveryValueIsTheSDKs(t *testing.T) {
	spans := allSpans(true)
	t.Run("one resource, one scope", func(t *testing.T) {
		ours, sdk := bothJSON(t, spans[:3])
		if ours != sdk {
			i := 0
			for i < len(ours) && i < len(sdk) && ours[i] == sdk[i] {
				i++
			}
			t.Fatalf("the line differs from byte %d:\n ours: %.300s\n  sdk: %.300s", i, ours[max(0, i-80):], sdk[max(0, i-80):])
		}
	})
	for name, spans := range map[string][]sdktrace.ReadOnlySpan{"in order": spans, "reversed": reversed(spans)} {
		t.Run("several resources and scopes, "+name, func(t *testing.T) {
			ours, sdk := bothJSON(t, spans)
			if got, want := groupsSorted(t, ours), groupsSorted(t, sdk); got != want {
				t.Fatalf("the groups differ:\n ours: %s\n  sdk: %s", got, want)
			}
		})
	}
}

// TestTheUserAgentNamesTheSDKExporterVersion: the OTLP client says it
// is the SDK's exporter of the version go.mod has, as it said when it
// asked otlptrace.Version().
func TestTheUserAgentNamesTheSDKExporterVersion(t *testing.T) {
	if sdkExporterVersion != otlptrace.Version() {
		t.Fatalf("sdkExporterVersion %s, otlptrace.Version() %s: update it", sdkExporterVersion, otlptrace.Version())
	}
}

// groupsSorted is an OTLP JSON line with its resourceSpans and each
// one's scopeSpans in the order of their encodings.
func groupsSorted(t *testing.T, line string) string {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	sortByJSON := func(list []any) {
		slices.SortFunc(list, func(a, b any) int {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			return bytes.Compare(ja, jb)
		})
	}
	rs, _ := v["resourceSpans"].([]any)
	for _, r := range rs {
		if m, ok := r.(map[string]any); ok {
			if ss, ok := m["scopeSpans"].([]any); ok {
				sortByJSON(ss)
			}
		}
	}
	sortByJSON(rs)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// bothJSON encodes spans with nightshift's file exporter and with the
// SDK's OTLP/HTTP exporter in JSON.
func bothJSON(t *testing.T, spans []sdktrace.ReadOnlySpan) (ours, sdk string) {
	t.Helper()
	ctx := context.Background()
	rt := &bodies{}
	sdkExp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL("http://x.invalid/v1/traces"), otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON),
		otlptracehttp.WithHTTPClient(&http.Client{Transport: rt}), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		t.Fatal(err)
	}
	if err := sdkExp.ExportSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	exp, err := FileExporter(ctx, &file)
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.ExportSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	if len(rt.seen) != 1 {
		t.Fatalf("the SDK sent %d requests", len(rt.seen))
	}
	return strings.TrimSuffix(file.String(), "\n"), string(bytes.TrimSpace(rt.seen[0]))
}

// collector answers each request with the next status of its script
// (then 200), keeping what it was sent.
type collector struct {
	mu      sync.Mutex
	script  []int
	retry   string
	reqs    []*http.Request
	bodies  [][]byte
	answer  []byte
	answerT string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		body, _ = io.ReadAll(zr)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs, c.bodies = append(c.reqs, r), append(c.bodies, body)
	if len(c.script) > 0 {
		code := c.script[0]
		c.script = c.script[1:]
		if c.retry != "" {
			w.Header().Set("Retry-After", c.retry)
		}
		http.Error(w, "busy", code)
		return
	}
	if c.answerT != "" {
		w.Header().Set("Content-Type", c.answerT)
	}
	w.Write(c.answer) //nolint:errcheck
}

func clientFor(t *testing.T, env map[string]string) (*httpClient, *[]time.Duration) {
	t.Helper()
	c, err := newHTTPClient(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.wait = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	return c, &waits
}

func upload(t *testing.T, c *httpClient) error {
	t.Helper()
	exp := &exporter{client: c}
	return exp.ExportSpans(context.Background(), someSpans(false))
}

// hasSpan reports whether req holds a span of that name, in any of its
// groups (the SDK groups spans by resource and scope in any order).
func hasSpan(req *coltracepb.ExportTraceServiceRequest, name string) bool {
	for _, r := range req.ResourceSpans {
		for _, sc := range r.ScopeSpans {
			for _, sp := range sc.Spans {
				if sp.Name == name {
					return true
				}
			}
		}
	}
	return false
}

func TestTheOTLPClientSendsWhatTheVariablesSay(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	t.Run("the endpoint with /v1/traces, protobuf, the headers", func(t *testing.T) {
		c, _ := clientFor(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL + "/",
			"OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b%2Cc, x-other = 2,bad"})
		if err := upload(t, c); err != nil {
			t.Fatal(err)
		}
		r := col.reqs[len(col.reqs)-1]
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Api-Key") != "a b,c" || r.Header.Get("X-Other") != "2" {
			t.Errorf("%s %s, headers %v", r.Method, r.URL.Path, r.Header)
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(col.bodies[len(col.bodies)-1], &req); err != nil || len(req.ResourceSpans) != 2 || !hasSpan(&req, "invoke_agent nightshift") {
			t.Errorf("the body is no ExportTraceServiceRequest of the spans: %v, %v", err, &req)
		}
	})
	t.Run("the traces endpoint whole, its own headers, gzip, JSON", func(t *testing.T) {
		c, _ := clientFor(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://not.used", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/custom",
			"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=2", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"})
		if err := upload(t, c); err != nil {
			t.Fatal(err)
		}
		r := col.reqs[len(col.reqs)-1]
		body := string(col.bodies[len(col.bodies)-1])
		if r.URL.Path != "/custom" || r.Header.Get("A") != "" || r.Header.Get("B") != "2" || r.Header.Get("Content-Encoding") != "gzip" ||
			r.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(body, `{"resourceSpans":[`) {
			t.Errorf("%s, headers %v, body %.80s", r.URL.Path, r.Header, body)
		}
	})
	t.Run("a busy collector is tried again after its Retry-After, then the usual waits", func(t *testing.T) {
		col.script, col.retry = []int{429, 503}, "7"
		c, waits := clientFor(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL})
		if err := upload(t, c); err != nil {
			t.Fatal(err)
		}
		col.script, col.retry = []int{502, 504, 503}, ""
		if err := upload(t, c); err != nil {
			t.Fatal(err)
		}
		if want := []time.Duration{7 * time.Second, 7 * time.Second, 5 * time.Second, 10 * time.Second, 20 * time.Second}; !equal(*waits, want) {
			t.Errorf("waits %v, want %v", *waits, want)
		}
	})
	t.Run("a refusal is not tried again, and says the status and the body", func(t *testing.T) {
		col.script = []int{400}
		c, waits := clientFor(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL})
		n := len(col.reqs)
		err := upload(t, c)
		if err == nil || !strings.Contains(err.Error(), "400 Bad Request") || !strings.Contains(err.Error(), "busy") || len(col.reqs) != n+1 || len(*waits) != 0 {
			t.Errorf("err %v after %d requests, %d waits", err, len(col.reqs)-n, len(*waits))
		}
	})
	t.Run("a partial success is an error", func(t *testing.T) {
		ans, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "too old"}})
		col.answer, col.answerT = ans, "application/x-protobuf"
		defer func() { col.answer, col.answerT = nil, "" }()
		c, _ := clientFor(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL})
		if err := upload(t, c); err == nil || !strings.Contains(err.Error(), "too old (2 spans rejected)") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("settings that cannot work are errors", func(t *testing.T) {
		for _, env := range []map[string]string{
			{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"},
			{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
			{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
			{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/no/such.pem"},
		} {
			if _, err := newHTTPClient(func(k string) string { return env[k] }); err == nil {
				t.Errorf("%v: no error", env)
			}
		}
	})
}

func equal(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
