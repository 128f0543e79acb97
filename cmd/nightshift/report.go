package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
)

func newReportCmd() *cobra.Command {
	var db, html, since string
	var asJSON bool
	var nights int
	cmd := &cobra.Command{
		Use:   "report [--db DB] [--nights N | --since 30d] [--json | --html FILE]",
		Short: "The morning report: what needs a person, how each night went, and the nights across",
		Long: `Report reads the ledger. First, what needs a person, the most urgent first,
each item with what broke, the time left to its deadline, what to do and the
commands that do it: system stops not dealt with (a refused key's worker, model
and variable), parked actions (task approve / deny), silent failures (a role
whose every call failed, a builder that took nothing of what waited), nights
cut short since the last that was not, tasks that failed on every model of
their role (task drop), unverified results (task show); it says so when
nothing does. Then each night:
its window, when and how it ended and why, the steps each role finished
against its ceiling, failures by scope with their reasons, and the last night
at a glance. Across nights: builder steps finished per night, and the nights
that ended early kept apart, cut short or out of work (the JSON's cut_short and
out_of_work; ended_early is their sum), tokens and failures by scope per night.

It covers the last 14 nights; --nights N the last N, --since the nights whose
window opened since a date (2025-10-01) or for a while (30d, 2w, 36h).
--html FILE writes one page that stands on its own (inline SVG and CSS: it
loads nothing), readable in dark mode and in print. The ledger must exist:
only night and task add create one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON && html != "" {
				return usagef("choose one of --json and --html")
			}
			if err := checkOutFile("html", html); err != nil {
				return err
			}
			now := reportNow()
			cfg, err := reportConfig(cmd, db, nights, since, now)
			if err != nil {
				return err
			}
			return withExistingLedger(cmd, db, func(ctx context.Context, l *ledger.Ledger) error {
				r, err := report.Build(ctx, l, now, cfg)
				if err != nil {
					return err
				}
				switch {
				case asJSON:
					return r.JSON(dataOut(cmd))
				case html != "":
					return writeReportPage(ctx, r, html)
				}
				return r.Text(humanOut(cmd))
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&html, "html", "", "write the report as one HTML page (charts inline, no network) to FILE")
	cmd.Flags().IntVar(&nights, "nights", report.DefaultNights, "cover the last N nights")
	cmd.Flags().StringVar(&since, "since", "", "cover the nights since a date (2025-10-01) or for a while (30d, 2w, 36h), instead of --nights")
	dbFlag(cmd, &db)
	return cmd
}

// reportNow is when a report is made; tests set it.
var reportNow = time.Now

// reportConfig reads report's flags.
func reportConfig(cmd *cobra.Command, db string, nights int, since string, now time.Time) (report.Config, error) {
	cfg := report.Config{Nights: nights, DB: db}
	if cmd.Flags().Changed("nights") && since != "" {
		return cfg, usagef("choose one of --nights and --since")
	}
	if nights < 1 {
		return cfg, usagef("--nights is %d: cover at least one night", nights)
	}
	if since != "" {
		t, err := parseSince(since, now)
		if err != nil {
			return cfg, usageError(err)
		}
		cfg.Since = t
	}
	return cfg, nil
}

// parseSince reads --since: a date, or a span back from now in days
// (30d), weeks (2w) or any Go duration (36h).
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		if t.After(now) {
			// It would cover no night, and say nothing of why.
			return time.Time{}, fmt.Errorf("--since is %s, which is after today (%s): write a date in the past, or a span back from now (30d)", s, now.Format("2006-01-02"))
		}
		return t, nil
	}
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, err := strconv.Atoi(strings.TrimSuffix(s, suffix)); err == nil && strings.HasSuffix(s, suffix) && n > 0 {
			if int64(n) > int64(math.MaxInt64/unit) {
				// The span would overflow a duration (some 292 years).
				return time.Time{}, fmt.Errorf("--since is %q: too far back; write a date (2025-10-01)", s)
			}
			return now.Add(-time.Duration(n) * unit), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since is %q: write a date (2025-10-01) or a span back from now (30d, 2w, 36h)", s)
}

// writeReportPage writes the report's page to path: made whole, then
// redacted, so that no secret is split between two writes.
func writeReportPage(ctx context.Context, r *report.Report, path string) error {
	var page bytes.Buffer
	if err := r.HTML(&page); err != nil {
		return err
	}
	return replaceFile(path, redactorOf(ctx).Bytes(page.Bytes()))
}

// replaceFile writes data to a new file beside path and renames it onto
// path: a link at path is replaced, never followed, and a reader sees the
// old page or the new one, never half of one.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// checkOutFile refuses, before anything runs, an output file (--html,
// --events) that could not be written at the end: a folder, or a path in
// a folder that does not exist. Found at the end, after a night had run,
// it was a bare "open …: is a directory", exit 1.
func checkOutFile(flag, path string) error { return checkOutFileAs(flag, path, "report.html") }

// checkOutFileAs is checkOutFile with the example file's name for a
// folder given in place of a file.
func checkOutFileAs(flag, path, example string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("--%s %s is a folder: name a file (for example %s)", flag, path, filepath.Join(path, example))
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		// A link where the output goes may be one somebody else planted
		// (in a shared folder such as /tmp): nightshift writes files, not
		// what links name.
		return usagef("--%s %s is a symbolic link, and nightshift never writes through a link: name the file itself", flag, path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return usagef("--%s %s: the folder %s does not exist: create it, or name a file in another", flag, path, filepath.Dir(path))
	}
	// The folder must take a new file: found unwritable at the end, it
	// failed with exit 1 after the whole night had run.
	probe, err := os.CreateTemp(filepath.Dir(path), ".nightshift-write-check-*")
	if err != nil {
		return usagef("--%s %s: cannot write in %s (%v): name a file in a folder you can write", flag, path, filepath.Dir(path), errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return usagef("--%s %s: cannot write it (%v): name another file, or change its permissions", flag, path, errors.Unwrap(err))
	}
	return nil
}

// reportTo writes the text report to w and the page to html (when set).
func reportTo(ctx context.Context, r *report.Report, w io.Writer, html string) error {
	if err := r.Text(w); err != nil {
		return err
	}
	if html == "" {
		return nil
	}
	return writeReportPage(ctx, r, html)
}
