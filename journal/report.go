package journal

import (
	"fmt"
	"strings"
)

// Report says what a rollback or a recovery did, path by path.
type Report struct {
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
}

// Conflict is a path left alone by a rollback, and why.
type Conflict struct {
	Path   string
	Reason string
}

func (c Conflict) String() string { return c.Path + ": " + c.Reason }

// Empty reports whether there was nothing to do.
func (r Report) Empty() bool {
	return len(r.Restored)+len(r.Removed)+len(r.Recreated)+len(r.Conflicts) == 0
}

// String is the report for a person, one line per path.
func (r Report) String() string {
	if r.Empty() {
		return "nothing to restore\n"
	}
	var b strings.Builder
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
	return b.String()
}

func (r *Report) merge(o Report) {
	r.Restored = append(r.Restored, o.Restored...)
	r.Removed = append(r.Removed, o.Removed...)
	r.Recreated = append(r.Recreated, o.Recreated...)
	r.Conflicts = append(r.Conflicts, o.Conflicts...)
}
