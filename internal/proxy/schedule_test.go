package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/internal/proxy"
)

// kinds lists the faults of requests 1..n.
func kinds(s *proxy.Schedule, n int) []string {
	out := make([]string, n)
	for i := range out {
		if f := s.Fault(i + 1); f != nil {
			out[i] = f.Kind()
		}
	}
	return out
}

func TestTheSameSeedGivesTheSameSchedule(t *testing.T) {
	const rates = "rate: {429: 0.1, 529: 0.05, cut: 0.05, empty: 0.05, truncate: 0.05}\n"
	a := kinds(schedule(t, "seed: 7\n"+rates), 2000)
	b := kinds(schedule(t, "seed: 7\n"+rates), 2000)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two schedules of seed 7 differ:\n%s", diff)
	}
	c := kinds(schedule(t, "seed: 8\n"+rates), 2000)
	if cmp.Equal(a, c) {
		t.Fatal("seeds 7 and 8 give the same schedule")
	}

	t.Run("whatever order the requests are asked in", func(t *testing.T) {
		s := schedule(t, "seed: 7\n"+rates)
		for n := 2000; n >= 1; n-- {
			got := ""
			if f := s.Fault(n); f != nil {
				got = f.Kind()
			}
			if got != a[n-1] {
				t.Fatalf("request %d: %q asked last, %q asked first", n, got, a[n-1])
			}
		}
	})

	t.Run("with each kind about as often as its rate", func(t *testing.T) {
		count := map[string]int{}
		for _, k := range kinds(schedule(t, "seed: 3\n"+rates), 20000) {
			count[k]++
		}
		want := map[string]float64{"429": 0.1, "529": 0.05, "cut": 0.05, "empty": 0.05, "truncate": 0.05, "": 0.7}
		for k, p := range want {
			got := float64(count[k]) / 20000
			if got < p-0.015 || got > p+0.015 {
				t.Errorf("kind %q: %.3f of the requests, want about %.2f", k, got, p)
			}
		}
	})

	t.Run("and without a seed, the default one", func(t *testing.T) {
		d := kinds(schedule(t, rates), 500)
		one := kinds(schedule(t, "seed: 1\n"+rates), 500)
		if !cmp.Equal(d, one) {
			t.Error("a schedule without a seed differs from seed 1's")
		}
	})
}

func TestAtWinsOverTheDraw(t *testing.T) {
	s := schedule(t, "rate: {500: 1}\nat:\n  2: cut\n  3: {status: 429, headers: {retry-after: \"7\"}}\n  4: {delay: 2s, empty: true}\n")
	if got := kinds(s, 5); !cmp.Equal(got, []string{"500", "cut", "429", "empty", "500"}) {
		t.Fatalf("kinds %v", got)
	}
	f := s.Fault(3)
	if f.Status != 429 || f.Headers["retry-after"] != "7" {
		t.Errorf("request 3's fault = %+v", f)
	}
	if f := s.Fault(4); f.Delay != 2*time.Second || !f.Empty {
		t.Errorf("request 4's fault = %+v", f)
	}
}

func TestAKindNamesItsFault(t *testing.T) {
	for _, kind := range proxy.Kinds() {
		f, err := proxy.FaultOf(kind)
		if err != nil || f.Kind() != kind {
			t.Errorf("FaultOf(%q) = %+v, %v", kind, f, err)
		}
	}
	f, _ := proxy.FaultOf("429")
	if f.Headers["retry-after"] != "1" {
		t.Errorf("429's headers = %v, want retry-after 1", f.Headers)
	}
	if f, _ := proxy.FaultOf("5xx"); f.Status != 500 {
		t.Errorf("5xx = %+v, want status 500", f)
	}
}

func TestSetRateIsTheShortForm(t *testing.T) {
	s := schedule(t, "rate: {429: 0.5}\n")
	if err := s.SetRate("429=1"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRate("empty=0"); err != nil {
		t.Fatal(err)
	}
	if got := kinds(s, 3); !cmp.Equal(got, []string{"429", "429", "429"}) {
		t.Errorf("kinds %v after --fault 429=1", got)
	}
}

func TestABadScheduleIsRefusedByName(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"rate: {429: 1.5}", "429: 1.5 is not a probability"},
		{"rate: {429: 0.6, cut: 0.6}", "add up to 1.2, more than 1"},
		{"rate: {teapot: 0.1}", `unknown fault "teapot"`},
		{"rate: {200: 0.1}", "a status fault is 400-599"},
		{"at: {0: cut}", "requests are numbered from 1"},
		{"at: {1: {empty: true, drop: true}}", "this one has drop and empty"},
		{"at: {1: {stop: end_turn}}", "truncates with stop: max_tokens"},
		{"at: {1: {headers: {a: b}}}", "headers and error need a status"},
		{"at: {1: {reset: sideways}}", "want before_headers or after_headers"},
		{"at: {1: {stall: -3s}}", "stall: want true or a positive duration"},
		{"at: {1: {}}", "a fault needs one of"},
		{"rates: {429: 0.1}", "field rates not found"},
	} {
		_, err := proxy.ParseSchedule([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.yaml, err, c.want)
		}
	}
	s := &proxy.Schedule{}
	for _, arg := range []string{"429", "429=lots", "=0.1"} {
		if err := s.SetRate(arg); err == nil {
			t.Errorf("SetRate(%q) took it", arg)
		}
	}
}

func TestAnEmptyScheduleInjectsNothing(t *testing.T) {
	for _, yaml := range []string{"", "seed: 4\n", "rate: {429: 0}\n"} {
		s := schedule(t, yaml)
		if !s.Empty() || s.Fault(1) != nil || s.String() != "no faults" {
			t.Errorf("%q: Empty %t, Fault(1) %v, %q", yaml, s.Empty(), s.Fault(1), s.String())
		}
	}
	var none *proxy.Schedule
	if none.Fault(1) != nil || !none.Empty() {
		t.Error("a nil schedule injects")
	}
}
