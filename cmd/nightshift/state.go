package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// defaultKeepState is how long run records and checkpoints are kept.
const defaultKeepState = 30 * 24 * time.Hour

// stateDirFlag adds --state-dir to cmd.
func stateDirFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "state-dir", "", doc("state-dir"))
}

// keepFlag is --keep-state: a duration, with "d" for days ("30d"); 0
// keeps everything.
type keepFlag struct{ d *time.Duration }

func (k keepFlag) String() string {
	if k.d == nil {
		return ""
	}
	if *k.d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", *k.d/(24*time.Hour))
	}
	return k.d.String()
}

func (k keepFlag) Set(s string) error {
	d, err := parseKeep(s)
	if err != nil {
		return err
	}
	*k.d = d
	return nil
}

func (k keepFlag) Type() string { return "duration" }

// parseKeep reads "30d", "12h", "90m" or "0".
func parseKeep(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, fmt.Errorf("%q: give days as 30d, or a duration such as 12h", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else if s == "0" {
		d = 0
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("%q: give days as 30d, or a duration such as 12h", s)
		}
	}
	if d < 0 {
		return 0, fmt.Errorf("%q must not be negative", s)
	}
	return d, nil
}
