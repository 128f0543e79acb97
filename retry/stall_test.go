package retry_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// TestAStallBeforeTheFirstByteWaitsAsLongAsTheStall: a stream cancelled
// before its first byte left the server reading the prompt of the
// cancelled request; the retry waits at least as long as the stall did,
// and says so, instead of queueing behind it (issue 28: all 4 attempts of
// a 2,100-token prompt were cancelled, each 1 s after the last).
func TestAStallBeforeTheFirstByteWaitsAsLongAsTheStall(t *testing.T) {
	stalled := func(quiet time.Duration, first bool) error {
		return &llm.Error{Provider: "test", Class: llm.Timeout, Message: "the stream sent nothing",
			Err: &llm.StallError{Quiet: quiet, BeforeFirstByte: first}}
	}
	for _, tc := range []struct {
		name      string
		err       error
		cause     string
		wait      time.Duration
		lineHolds string
	}{
		{"before the first byte: the stall's own wait", stalled(44*time.Second, true), retry.CauseStalled, 44 * time.Second, "stalled=44s"},
		{"mid-stream: the backoff", stalled(44*time.Second, false), retry.CauseBackoff, time.Second, "backoff=1s"},
		{"a stall shorter than the backoff: the backoff", stalled(100*time.Millisecond, true), retry.CauseBackoff, time.Second, "backoff=1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := clock.NewFake(epoch)
			fn, calls := script(tc.err)
			var got []retry.Attempt
			_, err := retry.Do(context.Background(), retry.Policy{Clock: fc, Rand: constRand(0),
				OnRetry: func(a retry.Attempt) { got = append(got, a) }}, fn)
			if err != nil || *calls != 2 {
				t.Fatalf("Do: %v after %d calls, want the retry's success", err, *calls)
			}
			if len(got) != 1 || got[0].Cause != tc.cause || got[0].Wait != tc.wait {
				t.Fatalf("retries %+v, want one of cause %s waiting %s", got, tc.cause, tc.wait)
			}
			if line := got[0].Line(); !strings.Contains(line, tc.lineHolds) {
				t.Errorf("retry line %q does not say %q", line, tc.lineHolds)
			}
			if w := fc.Waits(); len(w) != 1 || w[0] != tc.wait {
				t.Errorf("waited %v, want %s", w, tc.wait)
			}
		})
	}
}
