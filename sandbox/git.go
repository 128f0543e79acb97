package sandbox

import (
	"path/filepath"
	"slices"
)

// newGit returns the entries of after that are not in before (both
// absolute .git paths, as the plan and the look after a command find them
// with workspace.WalkProtected), relative to dir and sorted. A .git a
// command made is read-only from the next command on, but what it wrote
// there runs as the user at the user's next git command in that folder
// once the run has kept its changes: the command's output says so.
func newGit(dir string, before, after []string) []string {
	var out []string
	for _, p := range after {
		if !slices.Contains(before, p) {
			if rel, err := filepath.Rel(dir, p); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
	}
	slices.Sort(out)
	return out
}
