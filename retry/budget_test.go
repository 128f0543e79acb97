package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

func TestBudget(t *testing.T) {
	m := time.Minute
	limited := func(ra time.Duration) error {
		return &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: ra}
	}
	tests := []struct {
		name       string
		p          retry.Policy
		errs       []error
		wantCalls  int
		wantWaits  []time.Duration
		overBudget bool
		ok         bool
	}{
		{
			name:      "429s with a retry-after are waited out without spending retries",
			p:         retry.Policy{Retries: retry.NoRetries},
			errs:      repeat(limited(m), 4),
			wantCalls: 5, wantWaits: []time.Duration{m, m, m, m}, ok: true,
		},
		{
			name:      "the budget ends the call when the next wait would overrun it",
			p:         retry.Policy{Retries: retry.NoRetries},
			errs:      repeat(limited(4*m), 10),
			wantCalls: 3, wantWaits: []time.Duration{4 * m, 4 * m}, overBudget: true,
		},
		{
			name:      "a smaller budget is honoured",
			p:         retry.Policy{Retries: 5, Budget: 90 * time.Second},
			errs:      repeat(limited(m), 10),
			wantCalls: 2, wantWaits: []time.Duration{m}, overBudget: true,
		},
		{
			name:      "429s without a retry-after still spend retries",
			p:         retry.Policy{Retries: 1},
			errs:      repeat(limited(0), 10),
			wantCalls: 2, wantWaits: []time.Duration{time.Second},
		},
		{
			name:      "without a budget a retry-after 429 spends retries",
			p:         retry.Policy{Retries: 1, Budget: -1},
			errs:      repeat(limited(m), 10),
			wantCalls: 2, wantWaits: []time.Duration{m},
		},
		{
			name:      "backoff waits count against the budget too",
			p:         retry.Policy{Retries: 10, Budget: 5 * time.Second},
			errs:      repeat(statusErr(503, "", "unavailable"), 10),
			wantCalls: 3, wantWaits: []time.Duration{time.Second, 2 * time.Second}, overBudget: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := clock.NewFake(epoch)
			tt.p.Clock, tt.p.Rand = fake, constRand(0)
			fn, calls := script(tt.errs...)
			_, err := retry.Do(context.Background(), tt.p, fn)
			if *calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", *calls, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantWaits, fake.Waits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if tt.ok {
				if err != nil {
					t.Errorf("err = %v, want success", err)
				}
				return
			}
			var ex *retry.ExhaustedError
			if !errors.As(err, &ex) || ex.OverBudget != tt.overBudget {
				t.Errorf("err = %v, want ExhaustedError with OverBudget %v", err, tt.overBudget)
			}
		})
	}
}
