package retry_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/retry"
)

// TestZeroPolicyMeansTheDefaults is issue 9's bug: a zero Policy used to
// make one call and never retry, so every caller that forgot to fill it
// (the night's builder and its proposer and judge calls) gave up on the
// first 429. A zero Policy is now the documented defaults, and "no
// retries" is said explicitly.
func TestZeroPolicyMeansTheDefaults(t *testing.T) {
	overloaded := statusErr(529, "overloaded_error", "overloaded")
	tests := []struct {
		name      string
		p         retry.Policy
		wantCalls int
		wantWaits []time.Duration
	}{
		{
			name:      "the zero policy retries 3 times, backing off from 1s",
			p:         retry.Policy{},
			wantCalls: 4,
			wantWaits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name:      "NoRetries makes one call",
			p:         retry.Policy{Retries: retry.NoRetries},
			wantCalls: 1,
		},
		{
			name:      "any negative count means none",
			p:         retry.Policy{Retries: -7},
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := clock.NewFake(epoch)
			tt.p.Clock, tt.p.Rand = fake, constRand(0)
			fn, calls := script(repeat(overloaded, 10)...)
			if _, err := retry.Do(context.Background(), tt.p, fn); err == nil {
				t.Fatal("a call that always fails succeeded")
			}
			if *calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", *calls, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantWaits, fake.Waits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCountMapsAPersonsZeroToNone(t *testing.T) {
	for n, want := range map[int]int{0: retry.NoRetries, 1: 1, 3: 3} {
		if got := retry.Count(n); got != want {
			t.Errorf("Count(%d) = %d, want %d", n, got, want)
		}
	}
}
