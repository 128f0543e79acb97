package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
)

// The OTLP/HTTP client, in place of otlptracehttp's. That module's
// configuration package imports google.golang.org/grpc for its gRPC
// options, and grpc imports golang.org/x/net/trace, whose init registers
// an HTML page on http.DefaultServeMux: it linked 15 MB of grpc that
// nightshift never calls, and an html/template that makes the linker
// keep every exported method of every type (issue 23, item 10). The
// spans' conversion to OTLP is ours too (otlpexport.go); this is the
// POST, as the OTLP/HTTP specification and the SDK's exporter make it,
// from the same variables:
//
//   - OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, taken whole, or
//     OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces added; default
//     http://localhost:4318/v1/traces;
//   - _HEADERS (key=value pairs, comma-separated, URL-encoded), _TIMEOUT
//     (milliseconds, default 10 s), _COMPRESSION (gzip or none),
//     _PROTOCOL (http/protobuf, default, or http/json), _CERTIFICATE,
//     _CLIENT_CERTIFICATE and _CLIENT_KEY (PEM files), each first with
//     TRACES_ after OTLP_;
//   - a 429, 502, 503 or 504 is tried again after its Retry-After or a
//     growing wait (5 s, doubled, at most 30 s), for at most a minute,
//     as the SDK's exporter does; a collector's partial success is an
//     error for the error handler.

const (
	contentProto = "application/x-protobuf"
	contentJSON  = "application/json"
)

// sdkExporterVersion is the version of the SDK's OTLP exporter this
// client stands in for, in its User-Agent as the SDK's is
// (otlptrace.Version(); a test keeps the two the same).
const sdkExporterVersion = "1.47.0"

// httpClient is the exporter's client that POSTs each batch.
type httpClient struct {
	url     string
	headers map[string]string
	json    bool
	gzip    bool
	timeout time.Duration
	client  *http.Client
	// wait sleeps d or until ctx ends (tests make it instant).
	wait func(ctx context.Context, d time.Duration) error
}

var _ otlpClient = (*httpClient)(nil)

// newHTTPClient reads the client's settings from the variables.
func newHTTPClient(getenv func(string) string) (*httpClient, error) {
	env := func(name string) string {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_" + name)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
	}
	c := &httpClient{url: "http://localhost:4318/v1/traces", timeout: 10 * time.Second, headers: map[string]string{}, wait: clock.Real{}.Sleep}
	if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); v != "" {
		c.url = v
	} else if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); v != "" {
		c.url = strings.TrimSuffix(v, "/") + "/v1/traces"
	}
	if u, err := url.Parse(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the OTLP endpoint %q is not an http:// or https:// URL", c.url)
	}
	for _, kv := range strings.Split(env("HEADERS"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		k, kerr := url.PathUnescape(strings.TrimSpace(k))
		v, verr := url.PathUnescape(strings.TrimSpace(v))
		if kerr != nil || verr != nil || k == "" {
			continue
		}
		c.headers[k] = v
	}
	if v := env("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT=%s: give milliseconds", v)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch v := env("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION=%s: gzip or none", v)
	}
	c.json = env("PROTOCOL") == "http/json"
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if ca, cert, key := env("CERTIFICATE"), env("CLIENT_CERTIFICATE"), env("CLIENT_KEY"); ca != "" || cert != "" || key != "" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if ca != "" {
			pem, err := os.ReadFile(ca)
			if err != nil {
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
			}
			cfg.RootCAs = x509.NewCertPool()
			if !cfg.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE %s: no PEM certificate in it", ca)
			}
		}
		if cert != "" || key != "" {
			pair, err := tls.LoadX509KeyPair(cert, key)
			if err != nil {
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY: %w", err)
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
		transport.TLSClientConfig = cfg
	}
	c.client = &http.Client{Transport: transport}
	return c, nil
}

func (c *httpClient) stop(context.Context) error {
	c.client.CloseIdleConnections()
	return nil
}

// The retry's waits, as the SDK's exporter's defaults.
const (
	retryFirst   = 5 * time.Second
	retryMax     = 30 * time.Second
	retryElapsed = time.Minute
)

// upload sends one batch, again after a wait while the collector says
// it is busy.
func (c *httpClient) upload(ctx context.Context, batch []*resourceSpans) error {
	var body []byte
	var err error
	if c.json {
		body = otlpJSON(batch)
	} else {
		body, err = otlpProto(batch)
	}
	if err != nil {
		return fmt.Errorf("OTLP: encoding the spans: %w", err)
	}
	if c.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body) //nolint:errcheck // a bytes.Buffer does not fail
		if err := zw.Close(); err != nil {
			return err
		}
		body = b.Bytes()
	}
	deadline := time.Now().Add(retryElapsed)
	backoff := retryFirst
	for {
		wait, err := c.post(ctx, body)
		if wait < 0 {
			return err
		}
		if wait == 0 {
			wait = backoff
			backoff = min(2*backoff, retryMax)
		}
		if time.Now().Add(wait).After(deadline) {
			return err
		}
		if werr := c.wait(ctx, wait); werr != nil {
			return errors.Join(err, werr)
		}
	}
}

// post sends body once. A wait of -1 means done (err says how); 0 or
// more means try again after it (0: the usual backoff).
func (c *httpClient) post(ctx context.Context, body []byte) (time.Duration, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	r.Header.Set("User-Agent", "OTel OTLP Exporter Go/"+sdkExporterVersion+" (nightshift)")
	for k, v := range c.headers {
		r.Header.Set(k, v)
	}
	r.Header.Set("Content-Type", contentProto)
	if c.json {
		r.Header.Set("Content-Type", contentJSON)
	}
	if c.gzip {
		r.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.client.Do(r)
	if err != nil {
		if ctx.Err() == nil {
			return 0, fmt.Errorf("OTLP: %w", err) // the collector may come back
		}
		return -1, fmt.Errorf("OTLP: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		if resp.Header.Get("Content-Type") == contentProto {
			if n, msg := partialSuccess(data); n != 0 || msg != "" {
				return -1, fmt.Errorf("OTLP partial success: %s (%d spans rejected)", msg, n)
			}
		}
		return -1, nil
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		var wait time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		return wait, fmt.Errorf("OTLP: %s: %s", c.url, resp.Status)
	}
	msg := strings.TrimSpace(string(data))
	if msg == "" {
		msg = "(empty)"
	}
	return -1, fmt.Errorf("OTLP: failed to send to %s: %s (body: %s)", c.url, resp.Status, msg)
}

// maxGroupDepth is how deep groups may nest in an answer, as protowire
// allows.
const maxGroupDepth = 10000

// partialSuccess reads an ExportTraceServiceResponse's partial_success
// (field 1: rejected_spans 1, error_message 2); zero for none or for a
// body it cannot read.
func partialSuccess(b []byte) (rejected int64, msg string) {
	for len(b) > 0 {
		num, typ, n := consumeTag(b)
		if n < 0 {
			return 0, ""
		}
		b = b[n:]
		if num == 1 && typ == wireBytes {
			ps, n := consumeBytes(b)
			if n < 0 {
				return 0, ""
			}
			b = b[n:]
			for len(ps) > 0 {
				num, typ, n := consumeTag(ps)
				if n < 0 {
					return 0, ""
				}
				ps = ps[n:]
				switch {
				case num == 1 && typ == wireVarint:
					v, n := consumeVarint(ps)
					if n < 0 {
						return 0, ""
					}
					rejected, ps = int64(v), ps[n:]
				case num == 2 && typ == wireBytes:
					v, n := consumeBytes(ps)
					if n < 0 {
						return 0, ""
					}
					msg, ps = string(v), ps[n:]
				default:
					n := skipField(num, typ, ps, maxGroupDepth)
					if n < 0 {
						return 0, ""
					}
					ps = ps[n:]
				}
			}
			continue
		}
		n = skipField(num, typ, b, maxGroupDepth)
		if n < 0 {
			return 0, ""
		}
		b = b[n:]
	}
	return rejected, msg
}
