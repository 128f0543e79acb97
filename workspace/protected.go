package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Protected is a path of the workspace that git reads as its own or runs
// as the user: a .git folder or file, the git folder a .git file points
// to, a repository's hooks folder (core.hooksPath), a config file git
// includes, a program its config names. Neither the file tools nor the
// commands of a run may change one: what is written there runs as the
// user at the next git command, a cmd: check's or the user's own.
type Protected struct {
	// Path is the absolute path, under the workspace's real path.
	Path string
	// Rel is Path relative to the workspace, slash-separated.
	Rel string
	// Why says what it is, for messages: "a .git folder", "the hooks
	// folder of the repository at . (core.hooksPath)", ...
	Why string
	// Dir reports that git expects a folder there (a hooks folder, a git
	// folder) rather than a file: what a path that does not exist yet
	// must become to be guarded.
	Dir bool
}

// Bounds on what discovery reads: git's own depth of include.path, and
// the size of one config or .git file (git refuses a .git file larger
// than a few pages).
const (
	maxIncludeDepth = 10
	maxGitFileSize  = 1 << 20
	maxConfigFiles  = 64
)

// ProtectedPaths returns every protected path of the workspace dir
// (Protected), sorted, with paths that lie inside another protected
// folder left out (the folder covers them). See WalkProtected.
func ProtectedPaths(ctx context.Context, dir string) ([]Protected, error) {
	return WalkProtected(ctx, dir, nil)
}

// WalkProtected walks the workspace dir and returns its protected paths,
// as ProtectedPaths does, calling visit (when not nil) with every other
// entry on the way, so that a caller that looks at the whole workspace
// (the sandbox: hard links, sockets, setuid bits) does so in the same
// pass. The contents of .git folders are not walked.
//
// It reads git's configuration as git does for the parts that matter:
// every .git folder or file at any depth, however it is spelt
// (IsGitName); the gitdir: line of a .git file and the commondir file of
// a git folder (worktrees, submodules, --separate-git-dir); the config of
// the repository and its config.worktree, and what they include
// (include.path and includeIf.*.path, every condition taken as true), the
// system's and the user's config (GIT_CONFIG_SYSTEM, /etc/gitconfig,
// GIT_CONFIG_GLOBAL, $XDG_CONFIG_HOME/git/config, ~/.gitconfig); from all
// of them core.hooksPath (relative to the repository's worktree, or
// absolute, or ~/), core.worktree, and the programs that git runs
// (core.fsmonitor, core.sshCommand, filter.*.clean, diff.external, ...)
// when they are named by a path. A hooks folder named _ (husky 9's
// .husky/_) protects its parent folder too, whose scripts husky runs.
// What the workspace holds is hostile input: files are read only when
// they are regular, up to 1 MiB, without waiting (O_NONBLOCK), and a
// symlink that leads from inside the workspace to outside it is not
// followed. Only paths inside the workspace are returned; the workspace
// itself never is (a hooks folder that is the workspace's root is left
// out).
//
// The error is ctx's when it ended during the walk (what was found so far
// is returned with it), or the workspace's when dir cannot be resolved.
func WalkProtected(ctx context.Context, dir string, visit func(path string, d fs.DirEntry)) ([]Protected, error) {
	ws, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if ws, err = filepath.EvalSymlinks(ws); err != nil {
		return nil, err
	}
	d := &discovery{ws: ws, seen: map[string]int{}, repos: map[string]bool{}}
	d.global = d.globalConfigs()
	n := 0
	var werr error
	filepath.WalkDir(ws, func(p string, e fs.DirEntry, err error) error { //nolint:errcheck // an unreadable folder is skipped
		if n++; n%1024 == 0 && ctx.Err() != nil {
			werr = ctx.Err()
			return filepath.SkipAll
		}
		if err != nil || p == ws {
			return nil
		}
		if !IsGitName(e.Name()) {
			if visit != nil {
				visit(p, e)
			}
			return nil
		}
		d.gitEntry(p, e)
		if e.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	return d.result(), werr
}

// discovery gathers protected paths.
type discovery struct {
	ws     string
	out    []Protected
	seen   map[string]int  // path → index in out
	repos  map[string]bool // git folders read already: remotes may name each other
	global []gitVar        // the system's and the user's config, with their includes
}

// add records p (absolute, clean) when it lies inside the workspace.
func (d *discovery) add(p, why string, dir bool) {
	if p == "" || p == d.ws || !inside(p, d.ws) {
		return
	}
	if _, dup := d.seen[p]; dup {
		return
	}
	rel, _ := filepath.Rel(d.ws, p)
	d.seen[p] = len(d.out)
	d.out = append(d.out, Protected{Path: p, Rel: filepath.ToSlash(rel), Why: why, Dir: dir})
}

// result sorts what was found and leaves out what another protected
// folder covers.
func (d *discovery) result() []Protected {
	slices.SortFunc(d.out, func(a, b Protected) int { return strings.Compare(a.Path, b.Path) })
	var out []Protected
	for _, p := range d.out {
		covered := false
		for _, q := range out {
			if q.Path != p.Path && inside(p.Path, q.Path) && (q.Dir || isDir(q.Path)) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}

// gitEntry handles one .git entry at p: the entry itself, then what its
// git folder's files name.
func (d *discovery) gitEntry(p string, e fs.DirEntry) {
	worktree := filepath.Dir(p)
	target := p
	if e.Type()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(p)
		if err != nil || t == d.ws || !inside(t, d.ws) {
			// Outside the workspace (read-only to commands, out of the
			// file tools' reach) or dangling: nothing to guard, and a
			// link out is not followed.
			return
		}
		target = t
	}
	fi, err := os.Lstat(target)
	if err != nil {
		return
	}
	rel := d.rel(p)
	switch {
	case fi.IsDir():
		d.add(target, "a .git folder", true)
		d.repository(target, worktree)
	case fi.Mode().IsRegular():
		d.add(target, "a .git file", false)
		b, ok := d.read(target)
		if !ok {
			return
		}
		line, _, _ := strings.Cut(string(b), "\n")
		gitdir, ok := strings.CutPrefix(strings.TrimRight(line, " \t\r"), "gitdir: ")
		if !ok || gitdir == "" {
			return
		}
		if !filepath.IsAbs(gitdir) {
			gitdir = filepath.Join(filepath.Dir(target), gitdir)
		}
		gitdir = d.real(filepath.Clean(gitdir))
		d.add(gitdir, "the git folder that "+rel+" points to (gitdir:)", true)
		d.repository(gitdir, worktree)
	default:
		// A FIFO or a device named .git: never read, guarded all the same.
		d.add(target, "a .git entry", false)
	}
}

// repository handles the git folder gitdir of the worktree: its common
// folder, its config files and what they name.
func (d *discovery) repository(gitdir, worktree string) {
	if gitdir == "" || d.repos[gitdir] {
		return
	}
	d.repos[gitdir] = true
	common := gitdir
	if b, ok := d.read(filepath.Join(gitdir, "commondir")); ok {
		c := strings.TrimSpace(string(b))
		if c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitdir, c)
			}
			common = d.real(filepath.Clean(c))
			d.add(common, "the git folder that "+d.rel(filepath.Join(gitdir, "commondir"))+" names", true)
		}
	}
	vars := slices.Clone(d.global)
	files := 0
	for _, cfg := range []string{filepath.Join(common, "config"), filepath.Join(gitdir, "config.worktree")} {
		vars = append(vars, d.config(cfg, 0, &files)...)
	}
	for _, v := range vars {
		if v.section == "core" && v.sub == "" && v.key == "worktree" && v.value != "" {
			w := d.expand(v.value)
			if !filepath.IsAbs(w) {
				w = filepath.Join(gitdir, w)
			}
			worktree = filepath.Clean(w)
		}
	}
	repo := d.rel(worktree)
	if repo == "" {
		repo = "."
	}
	for _, v := range vars {
		switch {
		case v.section == "core" && v.sub == "" && v.key == "hookspath" && !v.bare && v.value != "":
			h := d.expand(v.value)
			if !filepath.IsAbs(h) {
				h = filepath.Join(worktree, h)
			}
			h = d.real(filepath.Clean(h))
			d.add(h, "the hooks folder of the repository at "+repo+" (core.hooksPath)", true)
			if filepath.Base(h) == "_" {
				d.add(filepath.Dir(h), "the folder of the hooks that husky runs from "+d.rel(h)+" (core.hooksPath)", true)
			}
		case v.section == "remote" && v.sub != "" && (v.key == "url" || v.key == "pushurl"):
			// A remote that is a folder of the workspace: git push runs
			// its hooks (pre-receive, update, post-receive) as the user.
			if r := localURL(v.value); r != "" {
				r = d.expand(r)
				if !filepath.IsAbs(r) {
					r = filepath.Join(worktree, r)
				}
				r = d.real(filepath.Clean(r))
				if r != "" && !isDir(filepath.Join(r, ".git")) {
					d.add(r, "the repository that remote "+v.sub+" of the repository at "+repo+" names (git push runs its hooks)", true)
					if isDir(r) {
						d.repository(r, r)
					}
				}
			}
		case isProgramKey(v):
			if prog := programPath(v.value); prog != "" {
				prog = d.expand(prog)
				if !filepath.IsAbs(prog) {
					prog = filepath.Join(worktree, prog)
				}
				d.add(d.real(filepath.Clean(prog)), "a program that git runs for the repository at "+repo+" ("+v.name()+")", false)
			}
		}
	}
}

// config reads the config file path and the files it includes, adding
// each included file inside the workspace, and returns their variables
// in git's order (an include's variables where it is included).
func (d *discovery) config(path string, depth int, files *int) []gitVar {
	if depth > maxIncludeDepth || *files >= maxConfigFiles {
		return nil
	}
	*files++
	b, ok := d.read(path)
	if !ok {
		return nil
	}
	var out []gitVar
	for _, v := range parseGitConfig(b) {
		out = append(out, v)
		include := v.section == "include" && v.sub == "" || v.section == "includeif" && v.sub != ""
		if !include || v.key != "path" || v.bare || v.value == "" {
			continue
		}
		inc := d.expand(v.value)
		if !filepath.IsAbs(inc) {
			inc = filepath.Join(filepath.Dir(path), inc)
		}
		inc = d.real(filepath.Clean(inc))
		d.add(inc, "a config file that git includes ("+v.name()+" in "+d.name(path)+")", false)
		out = append(out, d.config(inc, depth+1, files)...)
	}
	return out
}

// globalConfigs reads the system's and the user's config, as git finds
// them, with what they include.
func (d *discovery) globalConfigs() []gitVar {
	var paths []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		paths = append(paths, cmp.Or(os.Getenv("GIT_CONFIG_SYSTEM"), "/etc/gitconfig"))
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		paths = append(paths, g)
	} else {
		home, _ := os.UserHomeDir()
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			paths = append(paths, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			paths = append(paths, filepath.Join(home, ".gitconfig"))
		}
	}
	var out []gitVar
	files := 0
	for _, p := range paths {
		out = append(out, d.config(p, 0, &files)...)
	}
	// GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n: config
	// given in the environment, read last, as git does.
	n, _ := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT"))
	for i := range min(n, 100) {
		key := strings.ToLower(os.Getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i)))
		first, rest, ok1 := strings.Cut(key, ".")
		if !ok1 {
			continue
		}
		v := gitVar{section: first, value: os.Getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))}
		if dot := strings.LastIndexByte(rest, '.'); dot >= 0 {
			// The subsection keeps its case in git; the key was cut from
			// the lowered name, so take the subsection as written.
			orig := os.Getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
			v.sub, v.key = orig[len(first)+1:len(first)+1+dot], rest[dot+1:]
		} else {
			v.key = rest
		}
		out = append(out, v)
	}
	return out
}

// read returns the content of the regular file p, at most maxGitFileSize
// bytes, or false. A FIFO or a device is never opened (O_NONBLOCK, and
// the type checked on the open file), and a path inside the workspace
// whose symlinks lead out is not followed.
func (d *discovery) read(p string) ([]byte, bool) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil || inside(p, d.ws) && !inside(real, d.ws) {
		return nil, false
	}
	if fi, err := os.Lstat(real); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxGitFileSize {
		return nil, false
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxGitFileSize))
	return b, err == nil
}

// real resolves the symlinks of the part of p that exists, so that a
// path reached through a symlink inside the workspace is guarded where it
// lands; what does not exist yet is kept as written. A path whose
// symlinks lead out of the workspace, or that cannot be resolved, gives
// "": what lies outside is not the workspace's to guard, and a guard
// there (a placeholder made for a missing folder) must never be made
// through a link.
func (d *discovery) real(p string) string {
	existing, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(existing); err == nil {
			if inside(p, d.ws) && !inside(r, d.ws) {
				return ""
			}
			return filepath.Join(r, rest)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return ""
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return p
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
}

// expand reads a pathname value as git does: ~/ is the home folder, and
// ~user/ that user's.
func (d *discovery) expand(v string) string {
	if !strings.HasPrefix(v, "~") {
		return v
	}
	name, rest, _ := strings.Cut(v[1:], "/")
	var home string
	if name == "" {
		home, _ = os.UserHomeDir()
	} else if u, err := user.Lookup(name); err == nil {
		home = u.HomeDir
	}
	if home == "" {
		return v
	}
	return filepath.Join(home, rest)
}

// rel names p for a message: relative to the workspace when inside it.
func (d *discovery) rel(p string) string {
	if p == d.ws {
		return ""
	}
	if inside(p, d.ws) {
		r, _ := filepath.Rel(d.ws, p)
		return filepath.ToSlash(r)
	}
	return p
}

func (d *discovery) name(p string) string {
	if r := d.rel(p); r != "" {
		return r
	}
	return "."
}

// name spells a variable as git does: section.sub.key.
func (v gitVar) name() string {
	if v.sub != "" {
		return v.section + "." + v.sub + "." + v.key
	}
	return v.section + "." + v.key
}

// programKeys are the variables whose value is a command that git runs,
// "*" standing for any subsection (filter.lfs.process) or, in pager and
// alias, any key.
var programKeys = []string{
	"core.fsmonitor", "core.sshcommand", "core.editor", "core.pager", "core.askpass", "core.gitproxy",
	"sequence.editor", "diff.external", "diff.*.textconv", "diff.*.command", "merge.*.driver",
	"filter.*.clean", "filter.*.smudge", "filter.*.process", "gpg.program", "gpg.*.program",
	"credential.helper", "credential.*.helper", "interactive.difffilter", "uploadpack.packobjectshook",
	"mergetool.*.cmd", "difftool.*.cmd", "remote.*.uploadpack", "remote.*.receivepack",
	"pager.*", "alias.*",
}

func isProgramKey(v gitVar) bool {
	if v.bare || v.value == "" {
		return false
	}
	for _, k := range programKeys {
		section, rest, _ := strings.Cut(k, ".")
		if section != v.section {
			continue
		}
		sub, key, two := strings.Cut(rest, ".")
		switch {
		case !two && rest == "*":
			return v.sub == ""
		case !two:
			if v.sub == "" && v.key == rest {
				return true
			}
		case sub == "*" && v.sub != "" && v.key == key:
			return true
		}
	}
	return false
}

// programPath returns the program a command value starts with when it is
// named by a path (it holds a slash), else "": a bare name is looked up
// in PATH, outside the workspace's reach. A leading ! (an alias or a
// credential helper that is a shell command) is dropped; true and false
// (core.fsmonitor's built-in daemon) name no program.
func programPath(v string) string {
	v = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "!"))
	var word string
	if q := v; q != "" && (q[0] == '"' || q[0] == '\'') {
		if end := strings.IndexByte(q[1:], q[0]); end >= 0 {
			word = q[1 : 1+end]
		}
	} else {
		word, _, _ = strings.Cut(v, " ")
		word, _, _ = strings.Cut(word, "\t")
	}
	if !strings.Contains(word, "/") {
		return ""
	}
	return word
}

// localURL returns the path of a remote's url when it names a folder on
// this machine (a path, or file://), else "".
func localURL(u string) string {
	if p, ok := strings.CutPrefix(u, "file://"); ok {
		return p
	}
	if strings.Contains(u, "://") {
		return ""
	}
	// host:path is scp's form, unless a slash comes first (./a:b).
	if colon := strings.IndexByte(u, ':'); colon >= 0 {
		if slash := strings.IndexByte(u, '/'); slash < 0 || colon < slash {
			return ""
		}
	}
	return u
}

// inside reports whether p is dir or lies inside it.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}
