package fs

import (
	"context"
	"fmt"
	iofs "io/fs"
	"strings"

	"github.com/nightshift-dev/nightshift/workspace"
)

// protectedWrite refuses a write to rel when its path, as given or as its
// symlinks resolve, has a .git component, or lies in another path git
// reads as its own or runs (workspace.ProtectedPaths: a core.hooksPath
// folder such as husky's .husky/, the git folder a .git file points to,
// a config file git includes): a hook or a config line written there
// runs as the user at the next git command, a cmd: check's or the
// user's own. Reads stay allowed. The walk that finds them works under
// ctx, the run's: a time limit or a signal stops it, and a write whose
// check was stopped is refused (a list cut short could miss a hooks
// folder).
func protectedWrite(ctx context.Context, r *workspace.Root, name, rel string) error {
	if gitPath(rel) {
		return toolError(fmt.Sprintf("%s: %s is inside a .git folder, which the file tools may read but never change (git runs what is written there)", name, rel))
	}
	real, err := r.Resolve(rel)
	if err != nil {
		return nil // the write itself refuses the path, with its own message
	}
	if gitPath(real) {
		return toolError(fmt.Sprintf("%s: %s leads into %s, inside a .git folder, which the file tools may read but never change (git runs what is written there)", name, rel, real))
	}
	// Found again for each write: a command may have made a repository
	// since the last one.
	ps, err := workspace.ProtectedPaths(ctx, r.Dir())
	if err != nil && ctx.Err() != nil {
		return toolError(fmt.Sprintf("%s: %s was not written: the run is stopping (%v) before the paths git runs from could all be found", name, rel, ctx.Err()))
	}
	for _, p := range ps {
		if !underRel(real, p.Rel) {
			continue
		}
		where := p.Rel
		if real != p.Rel {
			where = "inside " + p.Rel + ","
		} else {
			where += ","
		}
		return toolError(fmt.Sprintf("%s: %s is %s %s, which the file tools may read but never change (git runs or reads what is there as the user)", name, rel, where, p.Why))
	}
	return nil
}

// underRel reports whether the slash-separated relative path p is dir or
// lies inside it, ignoring case: on a case-insensitive file system
// .HUSKY is .husky, and refusing the other spelling elsewhere costs
// nothing.
func underRel(p, dir string) bool {
	return strings.EqualFold(p, dir) || len(p) > len(dir) && p[len(dir)] == '/' && strings.EqualFold(p[:len(dir)], dir)
}

// gitPath reports whether a component of p is .git, however it is spelt
// (workspace.IsGitName).
func gitPath(p string) bool {
	for c := range strings.FieldsFuncSeq(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if workspace.IsGitName(c) {
			return true
		}
	}
	return false
}

// notRegular returns an error for the model when rel exists and is
// neither a regular file nor a folder: opening a FIFO waits for a writer
// that never comes, and a device or a socket is no file to read or write.
func notRegular(r *workspace.Root, name, rel string) error {
	fi, err := r.Stat(rel)
	if err != nil || fi.IsDir() || fi.Mode().IsRegular() {
		return nil
	}
	return toolError(fmt.Sprintf("%s: %s is %s, not a regular file; the file tools read and write regular files only", name, rel, kind(fi.Mode())))
}

// kind names a file type for the model.
func kind(m iofs.FileMode) string {
	switch {
	case m&iofs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&iofs.ModeSocket != 0:
		return "a socket"
	case m&iofs.ModeCharDevice != 0:
		return "a character device"
	case m&iofs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
