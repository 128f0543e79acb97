//go:build unix

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/nightshift-dev/nightshift/internal/ownfiles"
)

// whyOwn says why one of nightshift's own files is out of a command's
// reach.
const whyOwn = "nightshift writes it for itself during this run (its events, traces, report page or ledger), so no command may read, change or make it"

// guardOwn hides nightshift's own files that lie in the workspace
// (package ownfiles: the --events file, the --otel-file traces, the
// night's --html page, the ledger's SQLite files) from the command:
// each is bound to /dev/null, so that a command reads nothing there
// (the events hold the conversation, the ledger every task of the
// night) and what it writes goes nowhere. The journal leaves those files
// out of its captures and its rollback, so a change a command made there
// would never be undone; and nightshift itself trusts them: SQLite
// plays back a rollback journal (night.db-journal) it finds beside the
// database the next time it opens it, so one a command writes would
// change the ledger. One that does not exist yet gets an empty
// placeholder for the command's lifetime (holdOwnPlaceholder), bound
// the same way, so that the command cannot make it. The folders that
// hold one, up to the workspace, are pinned (plan.pin): a command cannot
// move such a folder aside and leave a symlink in its place, through
// which nightshift would write its report page, or SQLite its files,
// outside the workspace.
func (s *Sandbox) guardOwn(p *plan) {
	pinned := map[string]bool{}
	for _, rel := range ownfiles.In(s.dir) {
		path := filepath.Join(s.dir, rel)
		// Its folders, up to the workspace, cannot be moved aside.
		for d := filepath.Dir(path); d != s.dir && under(d, s.dir); d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() && !pinned[d] {
				pinned[d] = true
				p.pin = append(p.pin, d)
			}
		}
		switch _, err := os.Lstat(path); {
		case err == nil:
			p.ro = append(p.ro, roPath{path, whyOwn})
		case errors.Is(err, fs.ErrNotExist):
			if fi, err := os.Lstat(filepath.Dir(path)); err != nil || !fi.IsDir() {
				continue // made with its folder, by nightshift, later
			}
			if holdOwnPlaceholder(path) {
				p.held = append(p.held, path)
				p.ro = append(p.ro, roPath{path, whyOwn})
			}
		}
	}
	slices.Sort(p.pin) // a folder before the folders in it
}

// holdOwnPlaceholder is holdPlaceholder for one of nightshift's own
// files that does not exist yet: an empty file, but of mode 0600 rather
// than 0, since nightshift itself may open it while the command runs (a
// SQLite connection that finds an unreadable -journal beside its
// database takes it for a hot one and fails; an empty readable one is
// no journal at all). It is removed when the last holder lets go, if it
// is still that empty file; one nightshift wrote to (or replaced) in
// the meantime stays. One a killed nightshift left is an empty file,
// harmless where it lies.
func holdOwnPlaceholder(p string) bool {
	placeholderMu.Lock()
	defer placeholderMu.Unlock()
	if h := placeholders[p]; h != nil {
		h.n++
		return true
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return false
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		os.Remove(p)
		return false
	}
	placeholders[p] = &placeholder{n: 1, made: true, own: idOf(fi)}
	return true
}
