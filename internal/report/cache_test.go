package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm/models"
)

// TestTheTextSaysWhatThePromptCacheTook is a regression test: the
// report's JSON carried each night's cache-write and cache-read tokens,
// but its text, what a person reads in the morning, said only the
// tokens, where `nightshift run`'s closing line says
// "tokens: N in (cache: W written, R read)". Each night's line and the
// total say them, as the closing line does, when the cache was used.
func TestTheTextSaysWhatThePromptCacheTook(t *testing.T) {
	at := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	spend := ledger.Spend{Tokens: 50000, CacheWriteTokens: 4000, CacheReadTokens: 40000, Cost: models.USD(0.02), KnownUSD: 0.02}
	night := report.Night{Night: ledger.Night{Name: "2026-11-29", WindowStart: at.Add(-9 * time.Hour), WindowEnd: at.Add(-time.Hour),
		StartedAt: at.Add(-9 * time.Hour), Spend: spend}, Tokens: spend.Tokens}
	r := &report.Report{At: at, Nights: []report.Night{night}, Across: report.Across{Tokens: spend.Tokens, Spend: spend}}
	var b bytes.Buffer
	if err := r.Text(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"; 50000 tokens (cache: 4000 written, 40000 read); cost $0.0200\n",
		"Spent: 50000 tokens (cache: 4000 written, 40000 read), cost $0.0200",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, b.String())
		}
	}
}
