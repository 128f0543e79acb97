package tracing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/nightshift-dev/nightshift/internal/ownfiles"
)

// ErrConfig marks a tracing set-up that cannot work as given (an
// exporter or protocol nightshift does not have, a file it cannot
// write): a usage error.
var ErrConfig = errors.New("tracing: unusable configuration")

// Setup says whether and where a process exports its traces.
type Setup struct {
	// On exports over OTLP/HTTP (--otel): to OTEL_EXPORTER_OTLP_ENDPOINT
	// (or _TRACES_ENDPOINT), default http://localhost:4318. Without it,
	// traces are exported when OTEL_TRACES_EXPORTER says otlp or an
	// OTLP endpoint variable is set, as the OpenTelemetry SDKs do; never
	// when OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none.
	On bool
	// File appends the traces to this file as OTLP JSON lines (one
	// ExportTraceServiceRequest a line, the OpenTelemetry file exporter's
	// format), for offline use (--otel-file); default none. It is
	// written whatever the variables say.
	File string
	// Content records message content on the spans (--otel-content).
	Content bool
	// Version is nightshift's version, the resource's service.version.
	Version string
	// Getenv reads the environment; default os.Getenv.
	Getenv func(string) string
	// Errors is told the exporters' failures (a collector that cannot be
	// reached); default they are dropped.
	Errors func(error)
}

// Start sets up the exporters Setup asks for and returns the Tracer and
// the function that flushes and stops them, to call before the process
// ends. With no exporter asked for, it returns a nil Tracer (no spans)
// and a no-op.
func Start(ctx context.Context, s Setup) (*Tracer, func(context.Context) error, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	noop := func(context.Context) error { return nil }
	otlp, err := wantOTLP(s.On, getenv)
	if err != nil {
		return nil, noop, err
	}
	var opts []sdktrace.TracerProviderOption
	if otlp {
		c, err := newHTTPClient(getenv)
		if err != nil {
			return nil, noop, fmt.Errorf("%w: OTLP exporter: %w", ErrConfig, err)
		}
		opts = append(opts, sdktrace.WithBatcher(&exporter{client: c}))
	}
	var file *os.File
	if s.File != "" {
		file, err = os.OpenFile(s.File, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, noop, fmt.Errorf("%w: --otel-file: %w", ErrConfig, err)
		}
		// nightshift's own file, left out of any run's journal and judge.
		ownfiles.Add(s.File)
		exp, err := FileExporter(ctx, file)
		if err != nil {
			file.Close()
			return nil, noop, err
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	if len(opts) == 0 {
		return nil, noop, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "nightshift"), attribute.String("service.version", cmp.Or(s.Version, "dev"))),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil {
		res = resource.Default()
	}
	if s.Errors != nil {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(s.Errors))
	} else {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	}
	tp := sdktrace.NewTracerProvider(append(opts, sdktrace.WithResource(res))...)
	stop := func(ctx context.Context) error {
		err := tp.Shutdown(ctx)
		if file != nil {
			err = errors.Join(err, file.Close())
		}
		return err
	}
	return New(tp, Options{Content: s.Content}), stop, nil
}

// wantOTLP reads the standard variables: whether traces go out over OTLP.
func wantOTLP(on bool, getenv func(string) string) (bool, error) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		switch p := getenv(v); p {
		case "", "http/protobuf", "http/json":
		default:
			if on || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
				return false, fmt.Errorf("%w: %s=%s: nightshift exports traces over OTLP/HTTP only; use http/protobuf or http/json (a collector's port 4318)", ErrConfig, v, p)
			}
		}
	}
	if on {
		return true, nil
	}
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false, nil
	}
	switch exp := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exp {
	case "none":
		return false, nil
	case "otlp":
		return true, nil
	case "":
		return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "", nil
	default:
		return false, fmt.Errorf("%w: OTEL_TRACES_EXPORTER=%s: nightshift has the otlp exporter (OTLP/HTTP) only, and --otel-file for a file", ErrConfig, exp)
	}
}

// FileExporter returns an exporter that appends each batch of spans to w
// as one line of OTLP JSON, the OpenTelemetry file exporter's format
// (which the collector's otlpjsonfile receiver reads): what the OTLP/HTTP
// exporter would send a collector with http/json, one
// ExportTraceServiceRequest a line.
func FileExporter(ctx context.Context, w io.Writer) (sdktrace.SpanExporter, error) {
	return &exporter{client: &fileClient{w: w}}, nil
}

// fileClient writes each batch to w.
type fileClient struct {
	mu sync.Mutex
	w  io.Writer
}

func (c *fileClient) stop(context.Context) error { return nil }

func (c *fileClient) upload(_ context.Context, batch []*resourceSpans) error {
	line := append(otlpJSON(batch), '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.w.Write(line)
	return err
}
