package main

import (
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// simLimit holds the rate-limit flags of `nightshift sim serve`.
type simLimit struct {
	limit     int
	per       time.Duration
	noHeaders bool
}

func (l *simLimit) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&l.limit, "limit", 0, "rate limit: at most N requests in any window of --per (default none)")
	fl.DurationVar(&l.per, "per", time.Minute, "the rate limit's window, e.g. 1m or 6s")
	fl.BoolVar(&l.noHeaders, "no-headers", false, "with --limit, send no rate-limit headers: only 429 and Retry-After")
}

// serve serves h (a scenario's server, a cassette's) behind the rate
// limit.
func (l *simLimit) serve(cmd *cobra.Command, h http.Handler, addr string) error {
	if l.limit < 1 {
		return usagef("--per and --no-headers need --limit N (at least 1 request per window)")
	}
	if l.per <= 0 {
		return usagef("--per must be a positive duration such as 1m or 6s")
	}
	limited := scripted.RateLimit(h, scripted.RateLimitConfig{Limit: l.limit, Per: l.per, NoHeaders: l.noHeaders, Log: cmd.ErrOrStderr()})
	return scripted.ServeHandler(cmd.Context(), limited, addr, dataOut(cmd))
}

// simDown holds the outage flags of `nightshift sim serve`.
type simDown struct {
	after  int
	span   time.Duration
	status int
}

func (d *simDown) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&d.after, "down-after", 0, "outage: answer this many model calls first (with --down-for)")
	fl.DurationVar(&d.span, "down-for", 0, "outage: refuse every model call for this long, e.g. 30s (the scenario's down: {after, for})")
	fl.IntVar(&d.status, "down-status", 0, "outage: answer this status (503, 529) instead of closing the connection")
}

// apply lays the flags' outage over the scenario's.
func (d *simDown) apply(cmd *cobra.Command, sc *scripted.Scenario) error {
	fl := cmd.Flags()
	if !fl.Changed("down-for") {
		if fl.Changed("down-after") || fl.Changed("down-status") {
			return usagef("--down-after and --down-status need --down-for D, how long the outage lasts")
		}
		return nil
	}
	sc.Down = &scripted.Down{After: d.after, For: d.span, Status: d.status}
	if err := sc.Validate(); err != nil {
		return usageError(fmt.Errorf("--down-after, --down-for, --down-status: %w", err))
	}
	return nil
}
