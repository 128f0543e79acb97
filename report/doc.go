// Package report tells the person reading it in the morning what the
// nights did, from the ledger alone: per night, the window, when and how
// it ended, the steps each role finished, the tasks done, failed, skipped
// and parked, the failures by scope with their reasons and the FAILs by
// the check that decided them; across nights, the two numbers seed 003
// says would settle whether the policy works: builder steps finished per
// night, and nights that ended early. Parked tasks past their deadline are
// listed first, then approved tasks that have not run yet, with how long
// they have waited.
//
//	r, err := report.Build(ctx, l, time.Now())
//	r.Text(os.Stdout)          // or r.JSON(w), r.HTML(w) with SVG charts
package report
