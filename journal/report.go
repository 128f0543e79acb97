package journal

import (
	"fmt"
	"strings"
)

// Report says what a rollback or a recovery did, path by path.
type Report struct {
	// Runs are the runs whose journals were applied (Recover).
	Runs []string
	// Restored are paths the run changed, put back as they were (content
	// and mode).
	Restored []string
	// Removed are paths the run created, removed.
	Removed []string
	// Recreated are paths the run deleted, put back.
	Recreated []string
	// Conflicts are paths that something else changed during the run:
	// they are neither as they were nor as the run left them, so they
	// were left as they are for a person to look at.
	Conflicts []Conflict
	// Failed are paths that could not be put back (their saved content
	// is damaged or missing): they are left as they are, and the journal
	// is kept.
	Failed []Conflict
	// Protected are paths under a protected path (a .git, a
	// core.hooksPath folder, a gitfile's target) that the journal would
	// have written: no journal writes there (git runs what is written
	// there, as the user), so they are left as they are.
	Protected []Conflict
	// Damaged says what is wrong with a journal: a record missing or cut
	// short. A damaged journal is applied as far as it can be, and kept.
	Damaged []string
}

// Conflict is a path left alone by a rollback, and why.
type Conflict struct {
	Path   string
	Reason string
}

func (c Conflict) String() string { return c.Path + ": " + c.Reason }

// Empty reports whether there was nothing to do.
func (r Report) Empty() bool {
	return len(r.Restored)+len(r.Removed)+len(r.Recreated)+len(r.Conflicts)+len(r.Failed)+len(r.Damaged)+len(r.Protected) == 0
}

// Complete reports whether every change was undone or deliberately left
// (a conflict): nothing is damaged and nothing failed.
func (r Report) Complete() bool { return len(r.Failed)+len(r.Damaged) == 0 }

// String is the report for a person, one line per path.
func (r Report) String() string {
	if r.Empty() {
		return "nothing to restore\n"
	}
	var b strings.Builder
	for _, d := range r.Damaged {
		fmt.Fprintf(&b, "DAMAGED    %s\n", d)
	}
	for _, p := range r.Restored {
		fmt.Fprintf(&b, "restored   %s\n", p)
	}
	for _, p := range r.Recreated {
		fmt.Fprintf(&b, "recreated  %s\n", p)
	}
	for _, p := range r.Removed {
		fmt.Fprintf(&b, "removed    %s\n", p)
	}
	for _, c := range r.Conflicts {
		fmt.Fprintf(&b, "CONFLICT   %s (left as it is)\n", c)
	}
	for _, c := range r.Protected {
		fmt.Fprintf(&b, "PROTECTED  %s\n", c)
	}
	for _, c := range r.Failed {
		fmt.Fprintf(&b, "NOT RESTORED %s\n", c)
	}
	return b.String()
}

// Merge adds o's lines to r's: the report of two recoveries made one
// after the other.
func (r *Report) Merge(o Report) {
	r.Runs = append(r.Runs, o.Runs...)
	r.Restored = append(r.Restored, o.Restored...)
	r.Removed = append(r.Removed, o.Removed...)
	r.Recreated = append(r.Recreated, o.Recreated...)
	r.Conflicts = append(r.Conflicts, o.Conflicts...)
	r.Failed = append(r.Failed, o.Failed...)
	r.Protected = append(r.Protected, o.Protected...)
	r.Damaged = append(r.Damaged, o.Damaged...)
}
