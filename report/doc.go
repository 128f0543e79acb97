// Package report tells the person reading it in the morning what the
// nights did and what needs them, from the ledger alone.
//
// What needs a person comes first (Needs): parked actions with the commands
// that answer them and their deadlines, system stops not dealt with, tasks
// that failed on every model of their role, unverified results, and nights
// cut short by failure handling. Then each night (Night): how and why it
// ended, its steps against its ceilings, its failures by scope, and its
// Timeline, a row per worker and a mark per step (done, skipped: failed and
// charged to its task; failed: charged higher; parked; interrupted). Across
// the covered nights (the last 14 by default, Config.Nights or
// Config.Since), the Trend holds seed 003's two numbers per night: builder
// steps finished, and nights cut short by failure handling kept apart from
// nights that ran out of work; with tokens and failures by scope.
//
// The report writes itself as text, as JSON, and as one HTML page that
// stands on its own: inline SVG drawn by hand in html/template, inline CSS
// with a dark scheme and a print sheet, nothing loaded from anywhere.
//
//	r, err := report.Build(ctx, l, time.Now(), report.Config{DB: "night.db"})
//	r.Text(os.Stdout) // or r.JSON(w), r.HTML(w)
package report
