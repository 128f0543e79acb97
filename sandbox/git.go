package sandbox

import (
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/nightshift-dev/nightshift/workspace"
)

// gitEntries returns every .git folder or file in the workspace dir, at
// any depth and however it is spelt (workspace.IsGitName): the top-level
// one, a submodule's gitfile, a nested repository's folder. Under bwrap
// each one is bound read-only for the command, since git runs what is
// written there (hooks, core.fsmonitor, core.hooksPath) as the user, at
// the next git command in that folder: a cmd: check's or the user's own
// once the run is over. A .git that is a symlink counts by its target,
// when that is inside the workspace (outside it, everything but /tmp is
// read-only already). The list is sorted; folders under a .git folder
// are not walked.
func gitEntries(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error { //nolint:errcheck // an unreadable folder is skipped
		if err != nil || p == dir || !workspace.IsGitName(d.Name()) {
			return nil
		}
		target := p
		if d.Type()&fs.ModeSymlink != 0 {
			t, err := filepath.EvalSymlinks(p)
			if err != nil || t == dir || !under(t, dir) {
				return nil
			}
			target = t
		}
		out = append(out, target)
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// newGit returns the entries of after that are not in before (both
// sorted), relative to dir.
func newGit(dir string, before, after []string) []string {
	var out []string
	for _, p := range after {
		if _, found := slices.BinarySearch(before, p); !found {
			if rel, err := filepath.Rel(dir, p); err == nil {
				out = append(out, rel)
			}
		}
	}
	return out
}
