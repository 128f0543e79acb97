package sandbox

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/nightshift-dev/nightshift/statedir"
)

// HiddenHome lists the paths under a home folder that hold credentials,
// or lead to a service that acts with the user's rights; under bwrap each
// one that exists, in the user's home and in every other home of
// /etc/passwd, is replaced by an empty folder (or an empty file).
// ShellFiles and ServiceSockets are hidden the same way.
var HiddenHome = []string{
	".ssh", ".aws", ".gnupg", ".netrc", ".config/gh", ".config/gcloud",
	".docker", ".kube", ".git-credentials", ".config/git/credentials",
	".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".password-store", ".local/share/keyrings", ".azure",
	".pgpass", ".my.cnf", ".vault-token", ".terraform.d", ".config/containers/auth.json",
	".minikube", ".pulumi", ".config/hub", ".config/glab-cli", ".gem/credentials",
	".m2/settings.xml", ".gradle/gradle.properties", ".s3cfg", ".boto", ".oci", ".config/op",
	".config/rclone", ".config/doctl", ".mozilla", ".config/google-chrome", ".config/chromium",
}

// ShellFiles lists the shell start-up, history and environment files of a
// home folder: where people keep keys (export GITHUB_TOKEN=... in
// ~/.bashrc, a key typed once and kept in ~/.bash_history). Under bwrap
// each one that exists is hidden like HiddenHome's paths; a command's
// shell (sh -c) reads none of them.
var ShellFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".bashrc.d",
	".profile", ".profile.d", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".config/zsh",
	".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".config/fish", ".oh-my-zsh/custom",
	".config/nushell", ".config/powershell", ".env", ".envrc", ".config/environment.d", ".pam_environment",
	".bash_history", ".zsh_history", ".zhistory", ".histfile", ".history", ".sh_history", ".zsh_sessions",
	".local/share/fish", ".local/share/powershell", ".python_history", ".node_repl_history",
	".psql_history", ".mysql_history", ".sqlite_history", ".rediscli_history", ".irb_history",
	".pry_history", ".lesshst", ".viminfo", ".Rhistory", ".octave_hist", ".ipython",
	".dbshell", ".mongosh", ".clickhouse-client-history", ".influx_history", ".histdb", ".bash_sessions",
	".local/share/atuin", ".local/share/mcfly", ".local/share/nvim/shada", ".local/state/nvim/shada",
}

// ServiceSockets lists the folders where per-user services keep the
// sockets of Docker-compatible engines and other daemons that act with
// the user's rights (a socket on a read-only mount still answers): Colima,
// Rancher Desktop, Lima, podman machine, OrbStack, Finch, LXD and Incus
// clients, libvirt's session. Under bwrap each one that exists is
// replaced by an empty folder. The machine's own services under /run and
// /var/run are hidden already (a private /run); SystemSockets lists their
// other homes.
var ServiceSockets = []string{
	".colima", ".config/colima", ".rd", ".local/share/rancher-desktop", ".config/rancher-desktop",
	".lima", ".local/share/containers/podman/machine", ".config/containers/podman/machine",
	".orbstack", ".finch", "snap/lxd", ".config/lxc", ".config/incus", ".local/share/libvirt",
	".local/share/docker",
}

// SystemSockets lists the folders outside /run where services keep their
// sockets (LXD and Incus, MySQL on some systems, snaps): each one that
// exists is hidden under bwrap, and SystemScan's folders are scanned for
// more (socketScan).
var SystemSockets = []string{
	"/var/snap/lxd/common/lxd", "/var/lib/lxd", "/var/lib/incus", "/var/snap/microk8s/common/run",
	"/var/snap/docker/common", "/var/lib/mysql", "/var/lib/libvirt", "/var/spool/postfix/private",
	"/var/spool/postfix/public",
}

// The bounds of the scan for unix sockets and environment files outside
// the workspace: the folders scanned, how deep, and how many entries
// each may cost. The scan runs once per sandbox (once per run).
var SystemScan = []string{"/var/lib", "/var/snap", "/var/spool", "/var/tmp", "/srv", "/opt", "/home", "/usr/local/var", "/mnt"}

const (
	homeScanDepth    = 4
	homeScanEntries  = 20000
	otherScanDepth   = 3
	otherScanEntries = 2000
	maxOtherHomes    = 50
	systemScanDepth  = 4
	systemScanLimit  = 5000
	// besideScanLimit bounds the entries read in each folder that holds
	// the workspace (besideTheWay).
	besideScanLimit = 5000
)

// scanSkip are folders the scan does not enter: big, and without sockets
// or anyone's keys.
var scanSkip = []string{
	"node_modules", ".git", ".cache", ".npm", ".cargo", ".rustup", "go/pkg", ".m2", ".gradle",
	".local/share/Trash", "docker", "containers", "snapd", "apt", "dpkg", "flatpak",
}

// envFile reports whether a file's name says it holds environment
// variables: .env, .env.local, prod.env, .envrc (direnv).
func envFile(name string) bool {
	return name == ".env" || strings.HasPrefix(name, ".env.") || name == ".envrc" ||
		strings.HasSuffix(name, ".env") && len(name) > len(".env")
}

// outsideScans counts the scans, for a test that a sandbox scans only
// when its first command needs it.
var outsideScans atomic.Int64

// Prepare finds, once, what commands must not see outside the
// workspace (outsideHidden's bounded scan), which the first command
// would otherwise find before it starts, within its time limit. A
// caller that gives a command a time limit calls Prepare before it
// starts the clock; it costs nothing after the first call, nor under
// mode none. A sandbox does not scan when it is made: a run that starts
// no command never pays for it.
func (s *Sandbox) Prepare() {
	if s.mode == Bwrap {
		s.outsideHidden()
	}
}

// outsideHidden returns what commands must not see outside the
// workspace, found once per sandbox: Config.Hide, nightshift's state
// directory, HiddenHome, ShellFiles and ServiceSockets in every home,
// SystemSockets, and what the bounded scan finds (unix sockets, and
// environment files outside the workspace: in the homes, in the
// workspace's parent folders, in SystemScan's folders).
func (s *Sandbox) outsideHidden() []string {
	if s.outside == nil {
		return s.findOutsideHidden()
	}
	s.outside.once.Do(func() { s.outside.paths = s.findOutsideHidden() })
	return s.outside.paths
}

func (s *Sandbox) findOutsideHidden() []string {
	outsideScans.Add(1)
	var paths []string
	for _, h := range s.cfg.Hide {
		if !under(h, s.dir) {
			paths = append(paths, h)
		}
	}
	if base, err := statedir.Base(""); err == nil {
		paths = append(paths, base)
	}
	paths = append(paths, SystemSockets...)
	own, others := homes()
	for i, home := range append([]string{own}, others...) {
		if home == "" {
			continue
		}
		for _, list := range [][]string{HiddenHome, ShellFiles, ServiceSockets} {
			for _, h := range list {
				paths = append(paths, filepath.Join(home, h))
			}
		}
		depth, limit := otherScanDepth, otherScanEntries
		if i == 0 {
			depth, limit = homeScanDepth, homeScanEntries
		}
		paths = append(paths, scan(home, s.dir, depth, limit)...)
	}
	for _, root := range SystemScan {
		paths = append(paths, scan(root, s.dir, systemScanDepth, systemScanLimit)...)
	}
	paths = append(paths, besideTheWay(s.dir)...)
	return s.resolveOutside(paths)
}

// resolveOutside resolves paths, drops those that do not exist, lie
// where commands see a private folder anyway (/tmp, /run) or inside the
// workspace, and turns a folder that holds the workspace into what is
// beside the way to it.
func (s *Sandbox) resolveOutside(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] || real == "/" {
			continue
		}
		seen[real] = true
		switch {
		case under(real, s.dir), under(real, "/tmp"), under(real, "/run"), under(real, "/var/run"):
		case under(s.dir, real):
			// Hiding a folder that holds the workspace would hide the
			// workspace; what is beside it is hidden instead.
			out = append(out, besides(real, s.dir)...)
		default:
			out = append(out, real)
		}
	}
	// A path inside a hidden folder is hidden with it: mounting it too
	// would leave its mount point to be seen in the empty folder.
	slices.Sort(out)
	var kept []string
	for _, p := range slices.Compact(out) {
		if n := len(kept); n > 0 && under(p, kept[n-1]) && isDir(kept[n-1]) {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// homes returns the user's home folder and the other homes of
// /etc/passwd (as root, or where homes are readable, another user's keys
// are as near as one's own), at most maxOtherHomes of them.
func homes() (own string, others []string) {
	own, _ = os.UserHomeDir()
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return own, nil
	}
	defer f.Close()
	seen := map[string]bool{own: true, "/": true, "": true}
	sc := bufio.NewScanner(f)
	for lines := 0; sc.Scan() && lines < 10000 && len(others) < maxOtherHomes; lines++ {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 7 {
			continue
		}
		h := filepath.Clean(fields[5])
		if !filepath.IsAbs(h) || seen[h] {
			continue
		}
		seen[h] = true
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			others = append(others, h)
		}
	}
	return own, others
}

// scan walks root breadth-first, at most depth folders down and limit
// entries in all, and returns the unix sockets and environment files
// (envFile) it finds, never entering ws, scanSkip's folders or a
// symlink.
func scan(root, ws string, depth, limit int) []string {
	var out []string
	level := []string{root}
	seen := 0
	for d := 0; d <= depth && len(level) > 0 && seen < limit; d++ {
		var next []string
		for _, dir := range level {
			if under(dir, ws) || seen >= limit {
				continue
			}
			// Never more than what is left of the bound: one folder of
			// millions of entries (a cache) costs the bound, not its size.
			ents := readDirAtMost(dir, limit-seen)
			for _, e := range ents {
				seen++
				p := filepath.Join(dir, e.Name())
				switch t := e.Type(); {
				case t&fs.ModeSocket != 0:
					out = append(out, p)
				case t.IsRegular() && envFile(e.Name()):
					out = append(out, p)
				case t.IsDir() && !skipped(root, p) && !under(p, ws):
					next = append(next, p)
				}
			}
		}
		level = next
	}
	return out
}

// scanReadDir counts the entries the scan has read, for the tests.
var scanReadDir atomic.Int64

// readDirAtMost returns at most n entries of the folder dir, in the
// order the file system gives them (not sorted: sorting needs them all),
// nil when it cannot be read.
func readDirAtMost(dir string, n int) []fs.DirEntry {
	if n <= 0 {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []fs.DirEntry
	for len(out) < n {
		ents, err := f.ReadDir(min(n-len(out), 1024))
		out = append(out, ents...)
		if err != nil || len(ents) == 0 {
			break
		}
	}
	scanReadDir.Add(int64(len(out)))
	return out
}

// skipped reports whether the scan leaves the folder p out.
func skipped(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return true
	}
	rel = filepath.ToSlash(rel)
	for _, s := range scanSkip {
		if rel == s || strings.HasSuffix(rel, "/"+s) {
			return true
		}
	}
	return false
}

// besideTheWay returns the environment files and unix sockets in every
// folder that holds the workspace: a project's .env one folder up is no
// more the workspace's than one in another project.
func besideTheWay(ws string) []string {
	var out []string
	for dir := filepath.Dir(ws); ; dir = filepath.Dir(dir) {
		if ents := readDirAtMost(dir, besideScanLimit); ents != nil {
			for _, e := range ents {
				if t := e.Type(); t&fs.ModeSocket != 0 || t.IsRegular() && envFile(e.Name()) {
					out = append(out, filepath.Join(dir, e.Name()))
				}
			}
		}
		if filepath.Dir(dir) == dir {
			return out
		}
	}
}
