//go:build unix

package sandbox

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nightshift-dev/nightshift/workspace"
)

// afterLimit bounds the look at the workspace after a command that its
// context already ended (a timeout, an interrupt): the setuid bits it
// left are removed all the same, within this time.
const afterLimit = 30 * time.Second

// maxNotes bounds the read-only paths named after one command.
const maxNotes = 10

// prepare returns the plan of one command: under bwrap, every mount it
// needs (newPlan); under none, only the setuid and setgid files before
// it, whose bits are the user's.
func (s *Sandbox) prepare(ctx context.Context) *plan {
	if s.mode == Bwrap {
		return s.newPlan(ctx)
	}
	p := &plan{setid: map[string]fileID{}}
	s.walkFiles(ctx, func(path string, fi fs.FileInfo) {
		if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
			p.setid[path] = idOf(fi)
		}
	})
	return p
}

// after looks at the workspace once the command is over, and tells
// whoever reads its output (the model, the events, the record): about
// each .git it made (read-only from the next command on), each setuid or
// setgid bit it left on a file (removed: a setuid program the run kept
// would run with its owner's rights, a setgid one with its group's), and
// each read-only path that its error messages name (why it is
// read-only).
func (s *Sandbox) after(ctx context.Context, p *plan, tail string, out io.Writer) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), afterLimit)
		defer cancel()
	}
	setid := map[string]fs.FileInfo{}
	look := func(path string, fi fs.FileInfo) {
		if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
			setid[path] = fi
		}
	}
	if s.mode == Bwrap {
		protected, _ := workspace.WalkProtected(ctx, s.dir, func(path string, d fs.DirEntry) {
			if d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					look(path, fi)
				}
			}
		})
		for _, pr := range protected {
			if slices.Contains(p.protected, pr.Path) {
				continue
			}
			if _, err := os.Lstat(pr.Path); err != nil {
				continue // named by a config the command wrote, not there
			}
			if workspace.IsGitName(filepath.Base(pr.Path)) {
				fmt.Fprintf(out, "\nnightshift: this command made %s, read-only from the next command on; git runs its hooks and config as the user at the next git command there\n", pr.Rel)
				// The walk does not enter .git folders; a new one was
				// writable to the command, bits and all.
				walkTree(ctx, pr.Path, look)
				continue
			}
			// Where a symlink stood (a hooks folder linked elsewhere),
			// or a folder a new config names: what the command put
			// there runs as the user.
			fmt.Fprintf(out, "\nnightshift: this command made %s, %s: read-only from the next command on, but what it holds now runs or is read as the user at the next git command\n", pr.Rel, pr.Why)
		}
	} else {
		s.walkFiles(ctx, look)
	}
	for _, path := range slices.Sorted(maps.Keys(setid)) {
		fi := setid[path]
		if before, ok := p.setid[path]; ok && before == idOf(fi) {
			continue // the user's, untouched
		}
		rel, _ := filepath.Rel(s.dir, path)
		what := "setuid"
		switch m := fi.Mode(); {
		case m&fs.ModeSetuid != 0 && m&fs.ModeSetgid != 0:
			what = "setuid and setgid"
		case m&fs.ModeSetgid != 0:
			what = "setgid"
		}
		kept := fi.Mode() & (fs.ModePerm | fs.ModeSticky)
		if err := os.Chmod(path, kept); err != nil {
			fmt.Fprintf(out, "\nnightshift: this command left %s %s (%s) and nightshift could not remove the bit: %v; do not run it\n", filepath.ToSlash(rel), what, lsMode(fi.Mode()), err)
			continue
		}
		fmt.Fprintf(out, "\nnightshift: this command left %s %s (%s); nightshift removed the bit (now %s): a setuid or setgid program the run kept would run with its owner's or group's rights\n", filepath.ToSlash(rel), what, lsMode(fi.Mode()), lsMode(kept))
	}
	if s.mode == Bwrap {
		s.noteReadOnly(p, tail, out)
	}
}

// walkFiles calls f with every regular file of the workspace, .git
// folders included.
func (s *Sandbox) walkFiles(ctx context.Context, f func(path string, fi fs.FileInfo)) {
	walkTree(ctx, s.dir, f)
}

// walkTree calls f with every regular file under root.
func walkTree(ctx context.Context, root string, f func(path string, fi fs.FileInfo)) {
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error { //nolint:errcheck // an unreadable folder is skipped
		if n++; n%1024 == 0 && ctx.Err() != nil {
			return filepath.SkipAll
		}
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			f(p, fi)
		}
		return nil
	})
}

// noteReadOnly names, once each, the read-only paths of the plan that the
// command's failures mention ("Read-only file system", "Device or
// resource busy": a mount cannot be removed or renamed), with why they
// are read-only, so that the model does not take the sandbox for a broken
// disk.
func (s *Sandbox) noteReadOnly(p *plan, tail string, out io.Writer) {
	var lines []string
	for line := range strings.Lines(tail) {
		if strings.Contains(line, "Read-only file system") || strings.Contains(line, "Device or resource busy") {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return
	}
	mentioned := func(path string) bool {
		rel, err := filepath.Rel(s.dir, path)
		if err != nil {
			return false
		}
		for _, line := range lines {
			if strings.Contains(line, path) || strings.Contains(line, filepath.ToSlash(rel)) || hasWord(line, filepath.Base(rel)) {
				return true
			}
		}
		return false
	}
	named := map[string]bool{}
	for _, r := range p.ro {
		if mentioned(r.path) {
			named[r.path] = true
		}
	}
	// A file inside a read-only folder of linked files, named as the
	// command spelt it (sub/y.js after a cd).
	for _, f := range slices.Sorted(maps.Keys(p.linked)) {
		if len(named) >= maxNotes {
			break
		}
		if cover := p.linked[f]; !named[cover] && mentioned(f) {
			named[cover] = true
		}
	}
	n := 0
	for _, r := range p.ro {
		if named[r.path] && n < maxNotes {
			rel, _ := filepath.Rel(s.dir, r.path)
			fmt.Fprintf(out, "\nnightshift: %s is read-only to commands: %s\n", filepath.ToSlash(rel), r.why)
			n++
		}
	}
}

// lsMode spells a file's mode as ls -l does: -rwsr-xr-x.
func lsMode(m fs.FileMode) string {
	b := []byte("-rwxrwxrwx")
	if m.IsDir() {
		b[0] = 'd'
	}
	for i := range 9 {
		if m&(1<<(8-i)) == 0 {
			b[i+1] = '-'
		}
	}
	special := func(i int, on bool, set, unset byte) {
		if on {
			if b[i] == 'x' {
				b[i] = set
			} else {
				b[i] = unset
			}
		}
	}
	special(3, m&fs.ModeSetuid != 0, 's', 'S')
	special(6, m&fs.ModeSetgid != 0, 's', 'S')
	special(9, m&fs.ModeSticky != 0, 't', 'T')
	return string(b)
}

// hasWord reports whether name occurs in line as a whole path component.
func hasWord(line, name string) bool {
	nameByte := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c >= 0x80
	}
	for i := 0; ; {
		j := strings.Index(line[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !nameByte(line[j-1])) && (end == len(line) || !nameByte(line[end])) {
			return true
		}
		i = j + 1
	}
}

// lastBytes keeps the last max bytes written to it.
type lastBytes struct {
	max int
	b   []byte
}

func (l *lastBytes) Write(p []byte) (int, error) {
	l.b = append(l.b, p...)
	if over := len(l.b) - l.max; over > 0 {
		l.b = append(l.b[:0], l.b[over:]...)
	}
	return len(p), nil
}

func (l *lastBytes) String() string { return string(l.b) }
