package journal

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nightshift-dev/nightshift/workspace"
)

// protectedIn returns the test of the paths of the workspace at root that
// no journal ever writes: git runs what is written there, as the user, at
// the next git command (a hook, core.fsmonitor in a config), so a
// rollback or a recovery that wrote there would be a way to run planted
// code outside the sandbox. A path is protected when a component of it
// is .git, however it is spelt (workspace.IsGitName).
//
// A rollback leaves a protected path as it is (Report.Protected), and
// says so. It may still remove what its own journal says the run created
// there (a `git init` a command ran): that runs nothing.
func protectedIn(_ *os.Root) func(string) bool {
	return func(p string) bool {
		for _, c := range strings.Split(p, string(filepath.Separator)) {
			if workspace.IsGitName(c) {
				return true
			}
		}
		return false
	}
}
