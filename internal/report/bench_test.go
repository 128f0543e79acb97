package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/night"
)

// benchNights are the report's sizes the benchmarks measure: its default
// fortnight, a month, a year.
var benchNights = []int{14, 30, 365}

// A ledger of n nights, built once per size for the benchmarks: a
// proposer, a judge and a builder with two models, a ceiling of 10; each
// attempt 40 minutes; every seventh task fails once, every thirtieth
// parks (and expires), every hundredth night stops on a 401.
var (
	benchMu      sync.Mutex
	benchLedgers = map[int]*benchLedger{}
)

type benchLedger struct {
	l   *ledger.Ledger
	now time.Time
}

func ledgerOf(b *testing.B, nights int) *benchLedger {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if bl := benchLedgers[nights]; bl != nil {
		return bl
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "report-bench-")
	if err != nil {
		b.Fatal(err)
	}
	p, err := night.ParsePipeline([]byte(`
window: {start: "22:00", end: "06:00"}
wip: 6
models:
  idea:  {provider: scripted, scenario: unused.yaml}
  judge: {provider: scripted, scenario: unused.yaml}
  b1:    {provider: scripted, scenario: unused.yaml}
  b2:    {provider: scripted, scenario: unused.yaml}
roles:
  proposer: {models: [idea], ceiling: 3}
  judge:    {models: [judge], ceiling: 3}
  builder:  {models: [b1, b2], ceiling: 10}
`))
	if err != nil {
		b.Fatal(err)
	}
	p.WorkDir = filepath.Join(dir, "work")
	l, err := ledger.Open(ctx, filepath.Join(dir, "bench.db"), ledger.Config{})
	if err != nil {
		b.Fatal(err)
	}
	clk := clock.NewFake(firstNight)
	var mu sync.Mutex
	day, ideas := 0, 0
	auth := &llm.Error{Provider: "scripted", Class: llm.Auth, Status: 401, Message: "invalid x-api-key"}
	builder := night.BuilderFunc(func(_ context.Context, a night.Assignment) night.Attempt {
		mu.Lock()
		defer mu.Unlock()
		clk.Advance(40 * time.Minute)
		at := night.Attempt{Outcome: agent.Done, Answer: "made " + a.Task.Title, Tokens: 2000, Calls: 4, Cost: models.USD(0.006)}
		switch {
		case day%100 == 99:
			return night.Attempt{Outcome: agent.APIFailure, Reason: "401 invalid x-api-key", Err: auth, Calls: 1, Cost: models.USD(0)}
		case a.Task.ID%30 == 0:
			return night.Attempt{Outcome: agent.Parked, Park: &night.ParkRequest{Action: `run_command {"command":"curl -O https://example.org/x"}`}, Cost: models.USD(0.001)}
		case a.Task.ID%7 == 0 && a.Level == 0:
			return night.Attempt{Outcome: agent.Unverified, Checks: []string{"min-chars"}, Reason: "min-chars: 10 of 400", Tokens: 900, Cost: models.USD(0.003)}
		}
		return at
	})
	ms := map[string]llm.Model{
		"idea": llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			mu.Lock()
			defer mu.Unlock()
			clk.Advance(2 * time.Minute)
			ideas++
			return &llm.Response{Content: []llm.Block{llm.Text(fmt.Sprintf("- idea %d\n- idea %d b", ideas, ideas))}, StopReason: llm.EndTurn,
				Usage: llm.Usage{InputTokens: 100, OutputTokens: 20}}, nil
		}),
		"judge": llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			clk.Advance(time.Minute)
			var out strings.Builder
			for _, m := range regexp.MustCompile(`(?m)^(\d+): `).FindAllStringSubmatch(req.Messages[0].Text(), -1) {
				fmt.Fprintf(&out, "%s: 6\n", m[1])
			}
			return &llm.Response{Content: []llm.Block{llm.Text(out.String())}, StopReason: llm.EndTurn, Usage: llm.Usage{InputTokens: 120, OutputTokens: 10}}, nil
		}),
	}
	cfg := night.Config{Pipeline: p, Ledger: l, Builder: builder, Models: ms, Clock: clk}
	for d := range nights {
		mu.Lock()
		day = d
		mu.Unlock()
		for i := range 6 {
			s := 5 + float64(i)/10
			if _, err := l.AddTask(ctx, ledger.NewTask{Title: fmt.Sprintf("night %d task %d", d, i), Score: &s}, clk.Now()); err != nil {
				b.Fatal(err)
			}
		}
		sum, err := night.Run(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if now := clk.Now(); now.Before(sum.Night.WindowEnd) {
			clk.Advance(sum.Night.WindowEnd.Sub(now))
		}
	}
	bl := &benchLedger{l: l, now: clk.Now().Add(time.Minute)}
	benchLedgers[nights] = bl
	return bl
}

// BenchmarkReport measures the report over 14, 30 and 365 nights: Build
// (reading the ledger) and each form written from it, with the page's
// size in bytes (page-bytes) and the text's (text-bytes).
//
//	go test ./report -run XXX -bench Report -benchtime 5x
func BenchmarkReport(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchNights {
		bl := ledgerOf(b, n)
		cfg := report.Config{Nights: n}
		b.Run(fmt.Sprintf("nights=%d/build", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := report.Build(ctx, bl.l, bl.now, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
		r, err := report.Build(ctx, bl.l, bl.now, cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nights=%d/html", n), func(b *testing.B) {
			var page bytes.Buffer
			for b.Loop() {
				page.Reset()
				if err := r.HTML(&page); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(page.Len()), "page-bytes")
		})
		b.Run(fmt.Sprintf("nights=%d/text", n), func(b *testing.B) {
			var text bytes.Buffer
			for b.Loop() {
				text.Reset()
				if err := r.Text(&text); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(text.Len()), "text-bytes")
		})
	}
}

// BenchmarkThePageInABrowser measures how long headless Chromium takes to
// load and lay out the page of 14, 30 and 365 nights: from the start of
// the navigation to the end of the load event, and the first full layout
// the page asks for after it (ms-to-load, ms-layout), each the mean of
// the iterations. Chromium's own start is not in the figures.
//
//	go test ./report -run XXX -bench ThePageInABrowser -benchtime 3x
func BenchmarkThePageInABrowser(b *testing.B) {
	bin := chromium(b)
	ctx := context.Background()
	for _, n := range benchNights {
		bl := ledgerOf(b, n)
		r, err := report.Build(ctx, bl.l, bl.now, report.Config{Nights: n})
		if err != nil {
			b.Fatal(err)
		}
		var page bytes.Buffer
		if err := r.HTML(&page); err != nil {
			b.Fatal(err)
		}
		timed := strings.Replace(page.String(), "</body>", `<script>addEventListener("load", function () {
  var nav = performance.getEntriesByType("navigation")[0], t0 = performance.now();
  document.body.getBoundingClientRect(); document.documentElement.scrollHeight;
  var pre = document.createElement("pre"); pre.id = "timed";
  pre.textContent = JSON.stringify({load: nav.loadEventEnd || performance.now(), layout: performance.now() - t0});
  document.body.appendChild(pre);
});</script></body>`, 1)
		path := filepath.Join(b.TempDir(), "page.html")
		if err := os.WriteFile(path, []byte(timed), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nights=%d", n), func(b *testing.B) {
			var load, layout float64
			k := 0
			for b.Loop() {
				dom := render(b, bin, path)
				m := regexp.MustCompile(`<pre id="timed">(.*?)</pre>`).FindStringSubmatch(dom)
				var got struct{ Load, Layout float64 }
				if m == nil || json.Unmarshal([]byte(m[1]), &got) != nil {
					b.Fatalf("no timing in the page's DOM")
				}
				load, layout, k = load+got.Load, layout+got.Layout, k+1
			}
			b.ReportMetric(load/float64(k), "ms-to-load")
			b.ReportMetric(layout/float64(k), "ms-layout")
			b.ReportMetric(float64(page.Len()), "page-bytes")
		})
	}
}
