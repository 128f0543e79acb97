// Package report tells the person reading it in the morning what the
// nights did and what needs them, from the ledger alone.
//
// What needs a person comes first (Needs): one list of items, the most
// urgent first — system stops not dealt with, parked actions by deadline,
// silent failures (a role whose every call of a night failed, a builder
// that finished nothing while tasks waited: work that never happened, and
// said nothing), nights cut short since the last that was not, tasks that
// failed on every model of their role, unverified results — each saying
// what broke, when, what to do and the commands that do it. Only what is
// unresolved counts. Then each night (Night): how and why it ended, its
// steps against its ceilings, its failures by scope (and those a person
// recorded by hand after it), its silent failures, and its Timeline across
// the night's real span: a row per worker, a mark per step (done,
// skipped: failed and charged to its task; failed: charged higher;
// parked; interrupted), and the spans no step shows (a worker sitting
// out, a task waiting for a person, the night idle for an answer).
// Across the covered nights (the last 14 by default, Config.Nights or
// Config.Since), the Trend holds seed 003's two numbers per night: builder
// steps finished, and nights cut short by failure handling kept apart from
// nights that ran out of work; with tokens, cost and failures by scope.
//
// The report writes itself as text, as JSON (every list a list, never
// null), and as one HTML page that stands on its own: inline SVG drawn by
// hand in html/template, charts that keep their size and scroll on a
// narrow screen, inline CSS with a dark scheme and a print sheet, nothing
// loaded from anywhere.
//
//	r, err := report.Build(ctx, l, time.Now(), report.Config{DB: "night.db"})
//	r.Text(os.Stdout) // or r.JSON(w), r.HTML(w)
package report
