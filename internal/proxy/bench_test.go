package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/internal/proxy"
)

// benchUpstream answers a call with the golden Messages reply, or, with
// "stream":true, with a stream of events text deltas of about 200 bytes
// each, every one flushed as a provider's are.
func benchUpstream(b *testing.B, events int) *httptest.Server {
	b.Helper()
	reply := golden(b, "anthropic.json")
	delta := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" +
		strings.Repeat("lorem ipsum ", 12) + "\"}}\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(reply)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for range events {
			io.WriteString(w, delta)
			rc.Flush()
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

func benchProxy(b *testing.B, upstream string) string {
	b.Helper()
	p, err := proxy.New(proxy.Config{Upstream: upstream})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(p)
	b.Cleanup(srv.Close)
	return srv.URL
}

func post(b *testing.B, url, body string) int64 {
	req, _ := http.NewRequest("POST", url+"/v1/messages", strings.NewReader(body))
	req.Header.Set("x-api-key", "sk-ant-made-up-for-the-benchmark")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := rawClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	return n
}

// BenchmarkNonStreamingCall times one call without a stream, directly to
// the upstream and through the proxy without faults, and reports the
// calls' p50 and p99: the proxy's added latency is the difference.
func BenchmarkNonStreamingCall(b *testing.B) {
	up := benchUpstream(b, 0)
	for _, c := range []struct{ name, url string }{{"direct", up.URL}, {"proxy", benchProxy(b, up.URL)}} {
		b.Run(c.name, func(b *testing.B) {
			post(b, c.url, anthropicBody) // a warm connection
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				post(b, c.url, anthropicBody)
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkStreamingThroughput streams a reply of 2000 events (about
// 400 kB) directly from the upstream and through the proxy without
// faults: MB/s is the throughput.
func BenchmarkStreamingThroughput(b *testing.B) {
	const events = 2000
	up := benchUpstream(b, events)
	body := withStream(anthropicBody)
	for _, c := range []struct{ name, url string }{{"direct", up.URL}, {"proxy", benchProxy(b, up.URL)}} {
		b.Run(c.name, func(b *testing.B) {
			n := post(b, c.url, body)
			b.SetBytes(n)
			b.ResetTimer()
			for b.Loop() {
				if got := post(b, c.url, body); got != n {
					b.Fatalf("%d bytes, want %d", got, n)
				}
			}
		})
	}
}
