package stall_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/stall"
)

var start = time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC)

// stream is a response whose body the test feeds by hand.
func stream(req *http.Request) (*http.Response, *io.PipeWriter) {
	pr, pw := io.Pipe()
	go func() {
		<-req.Context().Done()
		pw.CloseWithError(req.Context().Err())
	}()
	return &http.Response{StatusCode: 200, Body: pr, Request: req}, pw
}

func TestWatch(t *testing.T) {
	t.Run("bytes keep a slow stream alive however long it runs", func(t *testing.T) {
		fc := clock.NewFake(start)
		req, _ := http.NewRequest("POST", "http://x", nil)
		var pw *io.PipeWriter
		res, err := stall.Watch(req, func(r *http.Request) (*http.Response, error) {
			var res *http.Response
			res, pw = stream(r)
			return res, nil
		}, 2*time.Minute, fc, "test")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		buf := make([]byte, 16)
		for i := range 10 {
			fc.Advance(90 * time.Second)
			go pw.Write([]byte("ping\n"))
			if _, err := res.Body.Read(buf); err != nil {
				t.Fatalf("read %d after 90s of quiet: %v", i, err)
			}
		}
	})
	t.Run("a body quiet for the stall time fails as a timeout", func(t *testing.T) {
		fc := clock.NewFake(start)
		req, _ := http.NewRequest("POST", "http://x", nil)
		res, err := stall.Watch(req, func(r *http.Request) (*http.Response, error) {
			res, _ := stream(r)
			return res, nil
		}, 2*time.Minute, fc, "test")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		fc.Advance(time.Minute)
		fc.Advance(time.Minute)
		_, err = io.ReadAll(res.Body)
		var e *llm.Error
		if !errors.As(err, &e) || e.Class != llm.Timeout || e.Provider != "test" || !strings.Contains(e.Message, "2m0s") {
			t.Fatalf("read: %v, want a Timeout-class stall", err)
		}
	})
	t.Run("no headers within the stall time fails as a timeout too", func(t *testing.T) {
		fc := clock.NewFake(start)
		req, _ := http.NewRequest("POST", "http://x", nil)
		waiting := make(chan struct{})
		go func() {
			<-waiting
			fc.Advance(3 * time.Minute)
		}()
		_, err := stall.Watch(req, func(r *http.Request) (*http.Response, error) {
			close(waiting)
			<-r.Context().Done()
			return nil, r.Context().Err()
		}, 2*time.Minute, fc, "test")
		if llm.ClassOf(err) != llm.Timeout {
			t.Fatalf("err = %v, want a timeout", err)
		}
	})
	t.Run("the caller's own cancel stays a cancel", func(t *testing.T) {
		fc := clock.NewFake(start)
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://x", nil)
		_, err := stall.Watch(req, func(r *http.Request) (*http.Response, error) {
			cancel()
			<-r.Context().Done()
			return nil, r.Context().Err()
		}, 2*time.Minute, fc, "test")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want the caller's cancel", err)
		}
	})
}

func TestOrGivesTheDocumentedMeaning(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{0: stall.DefaultTimeout, -1: 0, time.Second: time.Second} {
		if got := stall.Or(d); got != want {
			t.Errorf("Or(%s) = %s, want %s", d, got, want)
		}
	}
}
