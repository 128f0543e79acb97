package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/breaker"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/retry"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/statedir"
)

// newLimiters returns a limiter registry whose limiters share what they
// learn with the machine's other nightshift processes through the state
// directory's limits folder (stateDir is the --state-dir flag's value),
// so that separate runs on one key pace as one batch (issue 13). A
// scripted model answers inside its own process: its limiter is kept
// there. So is every limiter of a registry on a simulated clock, whose
// times mean nothing to another process. Where the limits folder cannot
// be made, this process paces alone.
func newLimiters(stateDir string, cfg retry.LimiterConfig) *retry.Limiters {
	if _, isReal := cfg.Clock.(clock.Real); cfg.Clock != nil && !isReal {
		return retry.NewLimiters(cfg)
	}
	if base, err := statedir.Base(stateDir); err == nil {
		if dir, err := statedir.Limits(base); err == nil {
			cfg.Dir = dir
			cfg.Share = func(endpoint string) bool { return !strings.HasPrefix(endpoint, "scripted") }
		}
	}
	return retry.NewLimiters(cfg)
}

// closeLimiters ends the registry's sharing and says so when the
// limiters could not share with the other processes: the run was paced,
// but alone.
func closeLimiters(lims *retry.Limiters, stderr io.Writer) {
	if err := lims.Close(); err != nil {
		fmt.Fprintf(stderr, "nightshift: the rate limit was paced in this process alone, not shared with other processes: %v\n", err)
	}
}

// breakerRegistries are the process's circuit-breaker registries, one
// per state directory (the --state-dir value): every run of the process
// on one endpoint, a batch's tasks and a resumed run's too, shares its
// breaker, and through the limits folder the machine's other processes
// do (package breaker). They live as long as the process.
var breakerRegistries sync.Map // string → *breaker.Breakers

// breakersFor returns the breaker registry of stateDir, shared with the
// machine's other processes through the limits folder, like the
// limiters; a scripted model's breaker stays in its process. Where the
// folder cannot be made, the breakers are this process's alone.
func breakersFor(stateDir string) *breaker.Breakers {
	if r, ok := breakerRegistries.Load(stateDir); ok {
		return r.(*breaker.Breakers)
	}
	dir := ""
	if base, err := statedir.Base(stateDir); err == nil {
		if d, err := statedir.Limits(base); err == nil {
			dir = d
		}
	}
	r, _ := breakerRegistries.LoadOrStore(stateDir, breaker.NewBreakers(dir, func(endpoint string) bool { return !strings.HasPrefix(endpoint, "scripted") }))
	return r.(*breaker.Breakers)
}

// breakerConfig is the breaker configuration a run spec gives (its zero
// fields the defaults).
func breakerConfig(s *runspec.Spec) breaker.Config {
	return breaker.Config{Failures: s.BreakerFailures, Cool: time.Duration(s.BreakerCool)}
}
