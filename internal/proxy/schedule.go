package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultSeed is the seed of a schedule that names none: the same
// schedule every time, unless a seed is asked for.
const DefaultSeed = 1

// Schedule says which fault, if any, each request gets. Request n (from 1,
// in the order requests arrive) gets At[n] when there is one; otherwise a
// draw decides, with each kind's probability Rates[kind]. The draw for
// request n depends only on Seed and n, so the same seed gives the same
// schedule however the requests interleave. The zero Schedule injects
// nothing: the proxy is transparent.
type Schedule struct {
	// Seed seeds the draws; 0 means DefaultSeed.
	Seed uint64 `yaml:"seed"`
	// Rates is each kind's probability per request; they add up to at
	// most 1.
	Rates map[string]float64 `yaml:"rate"`
	// At gives request n its fault, whatever the draw says.
	At map[int]Fault `yaml:"at"`

	// kinds holds the rates' faults in draw order.
	kinds []rated
}

type rated struct {
	fault *Fault
	rate  float64
}

// ParseSchedule reads a schedule from YAML:
//
//	seed: 7
//	rate: {429: 0.1, cut: 0.05}
//	at:
//	  1: 529
//	  3: {status: 429, headers: {retry-after: "2"}}
//
// Unknown keys are errors, so a misspelt field never silently does nothing.
func ParseSchedule(data []byte) (*Schedule, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	s := &Schedule{}
	if err := dec.Decode(s); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("proxy: faults: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadSchedule reads the schedule file at path.
func LoadSchedule(path string) (*Schedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	s, err := ParseSchedule(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// SetRate sets a kind's rate from "KIND=RATE", the form of --fault: it
// replaces a rate the file gave the same kind.
func (s *Schedule) SetRate(kindRate string) error {
	kind, rate, ok := strings.Cut(kindRate, "=")
	if !ok {
		return fmt.Errorf("fault %q: want KIND=RATE, for example 429=0.1 or cut=0.05", kindRate)
	}
	p, err := strconv.ParseFloat(strings.TrimSpace(rate), 64)
	if err != nil {
		return fmt.Errorf("fault %q: the rate %q is not a number: want a probability from 0 to 1", kindRate, rate)
	}
	if s.Rates == nil {
		s.Rates = map[string]float64{}
	}
	s.Rates[strings.TrimSpace(kind)] = p
	return s.Validate()
}

// Validate checks the rates and the request numbers and orders the kinds
// for the draw. ParseSchedule and SetRate call it; call it yourself for a
// Schedule built in Go.
func (s *Schedule) Validate() error {
	s.kinds = nil
	total := 0.0
	for kind, p := range s.Rates {
		f, err := FaultOf(kind)
		if err != nil {
			return fmt.Errorf("proxy: rate: %w", err)
		}
		if p < 0 || p > 1 {
			return fmt.Errorf("proxy: rate: %s: %v is not a probability (0 to 1)", kind, p)
		}
		if p > 0 {
			s.kinds = append(s.kinds, rated{f, p})
		}
		total += p
	}
	if total > 1+1e-9 {
		return fmt.Errorf("proxy: rate: the rates add up to %.3g, more than 1: at most one fault per request", total)
	}
	slices.SortFunc(s.kinds, func(a, b rated) int { return drawOrder(a.fault) - drawOrder(b.fault) })
	for n := range s.At {
		if n < 1 {
			return fmt.Errorf("proxy: at: request %d: requests are numbered from 1", n)
		}
	}
	return nil
}

// drawOrder orders the kinds in a draw: statuses ascending, then the named
// kinds in their order.
func drawOrder(f *Fault) int {
	if f.Status != 0 {
		return f.Status
	}
	return 1000 + slices.Index(namedKinds, f.kind)
}

// Empty reports whether the schedule injects nothing.
func (s *Schedule) Empty() bool {
	return s == nil || (len(s.At) == 0 && len(s.kinds) == 0)
}

// Fault returns request n's fault, nil for none.
func (s *Schedule) Fault(n int) *Fault {
	if s == nil {
		return nil
	}
	if f, ok := s.At[n]; ok {
		return &f
	}
	if len(s.kinds) == 0 {
		return nil
	}
	seed := s.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	u := rand.New(rand.NewPCG(seed, uint64(n))).Float64()
	for _, k := range s.kinds {
		if u < k.rate {
			f := *k.fault
			return &f
		}
		u -= k.rate
	}
	return nil
}

// String describes the schedule in one line, for logs.
func (s *Schedule) String() string {
	if s.Empty() {
		return "no faults"
	}
	var parts []string
	for _, k := range s.kinds {
		parts = append(parts, fmt.Sprintf("%s=%g", k.fault.kind, k.rate))
	}
	if len(s.kinds) > 0 {
		seed := s.Seed
		if seed == 0 {
			seed = DefaultSeed
		}
		parts = append(parts, fmt.Sprintf("seed=%d", seed))
	}
	ns := make([]int, 0, len(s.At))
	for n := range s.At {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	for _, n := range ns {
		f := s.At[n]
		parts = append(parts, fmt.Sprintf("#%d=%s", n, f.kind))
	}
	return strings.Join(parts, " ")
}
