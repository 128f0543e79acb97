// Package tracing records nightshift's work as OpenTelemetry traces: a
// span for each run ("invoke_agent nightshift"), each model call ("chat
// MODEL", the worker's and the judge's, retries inside as span events)
// and each tool call ("execute_tool NAME", the gate's decision and any
// wait for a person inside), with the GenAI semantic conventions'
// attributes (v1.40.0, keys in genai.go); a night's span, and one trace
// per step linked to it.
//
// Tracing is off unless asked for. Start reads the standard variables
// (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, ...) and the
// command's --otel, --otel-file and --otel-content; only the OTLP/HTTP
// exporter is built in (no gRPC), and --otel-file writes the same OTLP
// JSON to a file. Message content (prompts, answers, tool inputs and
// results, the task) is left out unless Options.Content says otherwise.
//
//	tr, stop, err := tracing.Start(ctx, tracing.Setup{On: true})
//	if err != nil {
//		return err
//	}
//	defer stop(context.Background())
//	res, err := lifecycle.Run(ctx, lifecycle.Config{Dir: ".", Model: model, Trace: tr}, task)
//
// A Go program with an OpenTelemetry set-up of its own passes its
// TracerProvider to New instead.
package tracing
