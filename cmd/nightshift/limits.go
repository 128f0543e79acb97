package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/retry"
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
