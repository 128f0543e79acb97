package journal

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/nightshift-dev/nightshift/workspace"
)

// protectedIn returns the test of the paths of the workspace at dir that
// no journal ever writes: git runs what is written there, as the user, at
// the next git command (a hook, core.fsmonitor in a config), so a
// rollback or a recovery that wrote there would be a way to run planted
// code outside the sandbox. A path is protected when a component of it is
// .git, however it is spelt (workspace.IsGitName), or when it is, or lies
// in, one of the workspace's protected paths as git reads them
// (workspace.ProtectedPaths: core.hooksPath folders such as husky's
// .husky/, the git folder a .git file points to, the config files and
// programs git's configuration names). They are read when the rollback
// starts, from the workspace as it is then.
//
// A rollback leaves a protected path as it is (Report.Protected), and
// says so. It may still remove what its own journal says the run created
// there (a `git init` a command ran): that runs nothing.
func protectedIn(ctx context.Context, dir string) func(string) bool {
	var found []string
	ps, _ := workspace.ProtectedPaths(ctx, dir) // what could be read is used
	for _, p := range ps {
		if p.Rel != "" && p.Rel != "." {
			found = append(found, filepath.FromSlash(p.Rel))
		}
	}
	return func(p string) bool {
		for _, c := range strings.Split(p, string(filepath.Separator)) {
			if workspace.IsGitName(c) {
				return true
			}
		}
		for _, f := range found {
			if p == f || strings.HasPrefix(p, f+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
}
