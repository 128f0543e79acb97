//go:build unix

package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/workspace"
)

// A plan is what one command (or MCP server) gets on top of the sandbox's
// fixed mounts, found by one walk of the workspace just before it starts:
// a command may have changed the workspace since the last one.
type plan struct {
	// ro are the paths bound read-only, each with why, for the notes.
	ro []roPath
	// held are the placeholders this plan holds (placeholder.go).
	held []string
	// linked are the files with more than one hard link, each with the
	// read-only path that covers it (a folder of them, or itself): how a
	// note finds the folder from a file an error message names.
	linked map[string]string
	// hide are the unix sockets of the workspace, hidden.
	hide []string
	// protected are the workspace's protected paths (each .git, hooks
	// folders, ...) as found before the command, to tell the new ones.
	protected []string
	// setid are the setuid and setgid files before the command, which
	// keep their bits: the user's, not the command's.
	setid map[string]fileID
	// pin are folders of the workspace bound onto themselves, read-write,
	// before any other of the plan's mounts: a folder that holds a mount
	// point of its own cannot be renamed or removed, so a command cannot
	// move the folder that holds one of nightshift's own files aside and
	// put a symlink in its place, through which nightshift would then
	// write outside the workspace (guardOwn).
	pin []string
	// refused says why the command must not run at all.
	refused string
	// noPlaceholders leaves out the placeholders of missing protected
	// paths other than .nightshift: for a program that lives as long as
	// the run (an MCP server), whose placeholders the run's own look at
	// the workspace would meet.
	noPlaceholders bool
}

// roPath is a path bound read-only, and why, in words for a note.
type roPath struct {
	path, why string
}

// fileID tells one state of a file from another: a setuid bit the command
// set changes the file's ctime.
type fileID struct {
	dev, ino  uint64
	ctimeNsec int64
	mode      fs.FileMode
}

// Bounds on what one plan mounts: bubblewrap refuses more than 9000
// arguments, and each mount costs it a pass over the mount table.
const (
	maxHardLinkMounts = 256
	maxSocketMounts   = 256
	maxPlanMounts     = 2500
)

// Why a path is read-only, in the notes.
const (
	whyStateDir = "it is where earlier versions of nightshift kept their state, and nothing a run writes there is trusted"
	whyHardLink = "it has more than one hard link (uv and pnpm link their caches into projects), so a change through this name would change the file outside the workspace too, which rollback cannot undo; write_file and edit_file replace the workspace's copy and leave the others alone"
	whyLinked   = "the files in it have more than one hard link (uv and pnpm link their caches into projects), so a change through these names would change the files outside the workspace too, which rollback cannot undo; write_file and edit_file replace the workspace's copy and leave the others alone"
)

// newPlan walks the workspace and prepares the mounts of one command:
// every protected path (workspace.WalkProtected: each .git, hooks
// folders, gitdir targets, included configs) read-only, a placeholder
// for each that does not exist yet, the workspace's .nightshift
// read-only whether it exists or not, every regular file with more than
// one hard link read-only, and every unix socket hidden. The caller must
// release it.
func (s *Sandbox) newPlan(ctx context.Context) *plan {
	return s.planWith(ctx, false)
}

// planWith is newPlan, with no placeholders but .nightshift's when
// noPlaceholders is set.
func (s *Sandbox) planWith(ctx context.Context, noPlaceholders bool) *plan {
	p := &plan{setid: map[string]fileID{}, noPlaceholders: noPlaceholders}
	w := newLinkTree(s.dir)
	protected, _ := workspace.WalkProtected(ctx, s.dir, func(path string, d fs.DirEntry) {
		t := d.Type()
		switch {
		case t&fs.ModeSocket != 0:
			p.hide = append(p.hide, path)
		case t&fs.ModeSymlink != 0:
			// A link to a socket elsewhere (docker.sock linked into a
			// project): the socket is hidden where it is.
			if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeSocket != 0 {
				if real, err := filepath.EvalSymlinks(path); err == nil && !under(real, "/tmp") && !under(real, "/run") && !under(real, "/var/run") {
					p.hide = append(p.hide, real)
				}
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				return
			}
			w.file(path, links(fi) > 1)
			if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				p.setid[path] = idOf(fi)
			}
		}
	})
	for _, pr := range protected {
		p.protected = append(p.protected, pr.Path)
		s.guard(p, pr.Path, pr.Why, pr.Dir)
	}
	s.guardStateDir(p)
	s.guardOwn(p)
	links := w.cover(maxHardLinkMounts)
	p.linked = map[string]string{}
	covers := map[string]bool{}
	for _, l := range links {
		covers[l] = true
	}
	for _, f := range w.files {
		for d := f; under(d, s.dir) && d != s.dir; d = filepath.Dir(d) {
			if covers[d] {
				p.linked[f] = d
				break
			}
		}
	}
	for _, l := range links {
		why := whyHardLink
		if fi, err := os.Lstat(l); err == nil && fi.IsDir() {
			why = whyLinked
		}
		p.ro = append(p.ro, roPath{l, why})
	}
	if len(p.hide) > maxSocketMounts {
		p.refused = fmt.Sprintf("the workspace holds %d unix sockets, more than the %d the sandbox can hide from a command (a socket answers whoever connects, with its server's rights); remove the stale ones", len(p.hide), maxSocketMounts)
	}
	if n := len(p.ro) + len(p.hide); n > maxPlanMounts && p.refused == "" {
		p.refused = fmt.Sprintf("the workspace needs %d read-only or hidden paths for a command (repositories, hooks folders, hard-linked files, sockets), more than the %d the sandbox can mount", n, maxPlanMounts)
	}
	slices.SortFunc(p.ro, func(a, b roPath) int { return strings.Compare(a.path, b.path) })
	return p
}

// guard binds path read-only, or, when it does not exist yet, holds a
// placeholder where it would go and binds that.
func (s *Sandbox) guard(p *plan, path, why string, dir bool) {
	if fi, err := os.Lstat(path); err == nil {
		// One that a killed nightshift left is taken over, so that it
		// goes when the command is over.
		if leftover(fi) && holdPlaceholder(path, fi.IsDir()) {
			p.held = append(p.held, path)
		}
		p.ro = append(p.ro, roPath{path, why})
		return
	}
	if p.noPlaceholders && why != whyStateDir {
		return
	}
	top := firstMissing(path, s.dir)
	if top == "" {
		return
	}
	if top != path {
		dir = true // a folder on the way
	}
	if holdPlaceholder(top, dir) {
		p.held = append(p.held, top)
		p.ro = append(p.ro, roPath{top, why})
	}
}

// guardStateDir makes the workspace's .nightshift read-only whether it
// exists or not: a command that makes .nightshift/journal/... fails,
// since an old nightshift would apply a journal there. One that is a
// symlink is guarded where it leads, when that is inside the workspace
// (outside, everything but the private /tmp is read-only already).
func (s *Sandbox) guardStateDir(p *plan) {
	sd := filepath.Join(s.dir, workspace.StateDirName)
	if fi, err := os.Lstat(sd); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(sd)
		if err != nil || t == s.dir || !under(t, s.dir) {
			return
		}
		sd = t
	}
	s.guard(p, sd, whyStateDir, true)
}

// release lets go of the plan's placeholders, once the command is over.
func (p *plan) release() {
	if p == nil {
		return
	}
	for _, h := range p.held {
		releasePlaceholder(h)
	}
	p.held = nil
}

// mounts returns the bwrap arguments of the plan, to come after the
// workspace's own bind: the read-only paths, then the hidden ones, then
// the state folder's contents hidden.
func (p *plan) mounts(ws string) []string {
	var a []string
	for _, r := range p.ro {
		switch {
		case r.why == whyOwn:
			a = append(a, hide(r.path)...)
		case r.why == whyStateDir:
			// Empty as well as read-only: what an old version left there
			// is none of a command's business.
			a = append(a, readOnlyEmpty(r.path)...)
		default:
			fi, err := os.Lstat(r.path)
			if err == nil && !fi.IsDir() && !fi.Mode().IsRegular() {
				// A FIFO or a device: hidden rather than bound.
				a = append(a, hide(r.path)...)
				continue
			}
			if err == nil && fi.Mode().IsRegular() && fi.Size() == 0 && fi.Mode().Perm() == 0 {
				// A placeholder file: /dev/null reads empty, and what is
				// written there goes nowhere.
				a = append(a, "--dev-bind", "/dev/null", r.path)
				continue
			}
			a = append(a, "--ro-bind", r.path, r.path)
		}
	}
	for _, h := range p.hide {
		a = append(a, hide(h)...)
	}
	return a
}

// readOnlyEmpty returns the mounts that make p an empty read-only folder
// (or, when it is a file, /dev/null: empty to read, and what is written
// there goes nowhere).
func readOnlyEmpty(p string) []string {
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return []string{"--tmpfs", p, "--remount-ro", p}
	}
	return hide(p)
}
