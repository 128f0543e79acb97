package retry_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

func TestWrapRetriesGenerate(t *testing.T) {
	calls := 0
	var seen []*llm.Request
	flaky := llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		calls++
		seen = append(seen, req)
		if calls <= 2 {
			return nil, statusErr(529, "overloaded_error", "overloaded")
		}
		return &llm.Response{Content: []llm.Block{llm.Text("done")}, StopReason: llm.EndTurn}, nil
	})
	var lines []string
	m := retry.Wrap(flaky, retry.Policy{
		Retries: retry.DefaultRetries,
		Clock:   clock.NewFake(epoch),
		Rand:    constRand(0),
		OnRetry: func(a retry.Attempt) { lines = append(lines, a.Line()) },
	})
	req := &llm.Request{Messages: []llm.Message{llm.UserText("hi")}}
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message().Text(); got != "done" {
		t.Errorf("answer = %q, want done", got)
	}
	want := []string{"status=529 attempt=1 wait=1000ms backoff=1s", "status=529 attempt=2 wait=2000ms backoff=2s"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("retry lines (-want +got):\n%s", diff)
	}
	for i, r := range seen {
		if r != req {
			t.Errorf("call %d got a different request", i+1)
		}
	}
}
