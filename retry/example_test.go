package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

// Wrap a model so that every call goes through the retry layer, printing
// one line per retry as the CLI does.
func ExampleWrap() {
	calls := 0
	m := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		calls++
		if calls == 1 {
			return nil, &llm.Error{Class: llm.RateLimited, Status: 429}
		}
		return &llm.Response{Content: []llm.Block{llm.Text("hello")}}, nil
	})
	m2 := retry.Wrap(m, retry.Policy{
		Retries: retry.DefaultRetries,
		Clock:   clock.NewFake(time.Time{}), // tests and examples never sleep
		Rand:    func() float64 { return 0 },
		OnRetry: func(a retry.Attempt) { fmt.Printf("[retry · %s]\n", a.Line()) },
	})
	resp, err := m2.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llm.UserText("hi")}})
	fmt.Println(resp.Message().Text(), err)
	// Output:
	// [retry · status=429 attempt=1 wait=1000ms backoff=1s]
	// hello <nil>
}

// errBusy stands for a read-class tool's transient failure.
var errBusy = errors.New("resource busy")

// Do retries any call; a custom Retryable decides what counts as wrong
// timing. Here a read that fails with a transient error is read again,
// which is safe because reading changes nothing (seed 000, section 5).
func ExampleDo() {
	reads := 0
	read := func(context.Context) (string, error) {
		reads++
		if reads < 3 {
			return "", errBusy
		}
		return "file content", nil
	}
	p := retry.Policy{
		Retries:   retry.DefaultRetries,
		Clock:     clock.NewFake(time.Time{}),
		Rand:      func() float64 { return 0 },
		Retryable: func(err error) bool { return errors.Is(err, errBusy) },
	}
	got, err := retry.Do(context.Background(), p, read)
	fmt.Println(got, err, reads)
	// Output:
	// file content <nil> 3
}

// Every run in the process takes the limiter of its credential from one
// registry, so that they pace their calls together; --rpm sets the pace by
// hand, and headers and 429s can only slow it further.
func ExampleLimiters() {
	limiters := retry.NewLimiters(retry.LimiterConfig{RPM: 30})
	lim := limiters.For("anthropic", "sk-ant-example")
	m := retry.Wrap(llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{}, nil
	}), retry.Policy{Retries: retry.DefaultRetries, Limiter: lim})
	_ = m // each Generate now waits its turn: two seconds apart at 30 rpm
	fmt.Println(lim.State().Interval, limiters.For("anthropic", "sk-ant-example") == lim)
	// Output:
	// 2s true
}
