//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// connectEnv makes the test binary connect to each unix socket named on
// its command line and say how it went (see TestMain): the sandbox's
// commands have no client of their own to count on.
const connectEnv = "NIGHTSHIFT_SANDBOX_CONNECT"

func tryConnect(paths []string) int {
	for _, p := range paths {
		c, err := net.Dial("unix", p)
		if err != nil {
			fmt.Printf("%s: refused\n", filepath.Base(p))
			continue
		}
		buf := make([]byte, 64)
		n, _ := c.Read(buf)
		c.Close()
		fmt.Printf("%s: %s\n", filepath.Base(p), strings.TrimSpace(string(buf[:n])))
	}
	return 0
}

// listen serves a unix socket at p that greets whoever connects, until
// the test ends.
func listen(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("answered\n")) //nolint:errcheck // the test reads it or not
			c.Close()
		}
	}()
}

// outsideTmp returns a new folder outside /tmp, which the sandbox makes
// private anyway: what it hides must be hidden where it is seen.
func outsideTmp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "nightshift-test-")
	if err != nil {
		t.Skipf("needs a folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func writeFile(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// linesOf runs line and fails the test unless the output is want.
func expect(t *testing.T, sb *Sandbox, line, want string) {
	t.Helper()
	if out, _ := runLine(t, sb, line); out != want {
		t.Errorf("%s:\n got %q\nwant %q", line, out, want)
	}
}

// Regression (issue 25): as root, /proc/sys was writable inside bwrap:
// kernel/core_pattern names a program the host runs as root at the next
// crash. Opening a file for writing without writing changes nothing, so
// the test tries that, and reads the mount's flags.
func TestBwrapKernelKnobsAreReadOnly(t *testing.T) {
	needBwrap(t)
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: t.TempDir()})
	for _, knob := range []string{"/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger", "/proc/mtrr", "/proc/irq/default_smp_affinity"} {
		if _, err := os.Stat(knob); err != nil {
			continue // not on this kernel
		}
		t.Run(knob, func(t *testing.T) {
			expect(t, sb, "{ true >> "+knob+"; } 2>/dev/null && echo writable || echo refused", "refused\n")
		})
	}
	t.Run("mounted read-only", func(t *testing.T) {
		expect(t, sb, `awk '$5 == "/proc/sys" { split($6, o, ","); print o[1] }' /proc/self/mountinfo`, "ro\n")
	})
	t.Run("the command's own processes stay visible", func(t *testing.T) {
		expect(t, sb, "test -r /proc/self/status && test -r /proc/1/status && echo ok", "ok\n")
	})
}

// Regression (issue 25): a command appending to a file with more than
// one hard link (uv and pnpm link their caches into projects) changed the
// file outside the workspace, which rollback, replacing only the
// workspace's name, left changed.
func TestBwrapHardLinkedFilesAreReadOnly(t *testing.T) {
	needBwrap(t)
	base := t.TempDir()
	store, ws := filepath.Join(base, "store"), filepath.Join(base, "ws")
	for _, name := range []string{"a.py", "pkg/x.js", "pkg/sub/y.js"} {
		writeFile(t, filepath.Join(store, name), "cached\n", 0o644)
	}
	writeFile(t, filepath.Join(ws, "mixed", "own.txt"), "mine\n", 0o644)
	writeFile(t, filepath.Join(ws, "node_modules", ".modules.yaml"), "pnpm's own\n", 0o644)
	for from, to := range map[string]string{"a.py": "mixed/a.py", "pkg/x.js": "node_modules/pkg/x.js", "pkg/sub/y.js": "node_modules/pkg/sub/y.js"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, to)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(store, from), filepath.Join(ws, to)); err != nil {
			t.Skipf("hard links: %v", err)
		}
	}
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
	out, _ := runLine(t, sb, "echo pwned >> mixed/a.py")
	if !strings.Contains(out, "Read-only file system") || !strings.Contains(out, "nightshift: mixed/a.py is read-only to commands: it has more than one hard link") {
		t.Errorf("appending to a linked file: %q; want it refused, and named with why", out)
	}
	out, _ = runLine(t, sb, "cd node_modules/pkg && echo pwned >> sub/y.js")
	if !strings.Contains(out, "nightshift: node_modules/pkg is read-only to commands: the files in it have more than one hard link") {
		t.Errorf("a folder of linked files: %q; want it named", out)
	}
	expect(t, sb, "{ echo pwned > node_modules/pkg/x.js; } 2>/dev/null || echo refused", "refused\n")
	expect(t, sb, "echo more >> mixed/own.txt && echo new > mixed/new.txt && cat mixed/own.txt", "mine\nmore\n")
	expect(t, sb, "echo more >> node_modules/.modules.yaml && cat node_modules/.modules.yaml", "pnpm's own\nmore\n")
	for _, name := range []string{"a.py", "pkg/x.js", "pkg/sub/y.js"} {
		if b, err := os.ReadFile(filepath.Join(store, name)); err != nil || string(b) != "cached\n" {
			t.Errorf("the store's %s = %q, %v: changed through the workspace", name, b, err)
		}
	}
}

// Regression (issue 25): Docker-compatible sockets under the home
// (Colima, Rancher Desktop, podman machine, LXD) answered a command, and
// so did any other unix socket outside /run, and one in the workspace.
func TestBwrapHidesUnixSockets(t *testing.T) {
	needBwrap(t)
	home := filepath.Join(outsideTmp(t), "home")
	ws := filepath.Join(home, "src", "project")
	socks := []string{
		filepath.Join(home, ".colima", "default", "docker.sock"),
		filepath.Join(home, ".rd", "docker.sock"),
		filepath.Join(home, ".local", "share", "containers", "podman", "machine", "podman.sock"),
		filepath.Join(home, "snap", "lxd", "common", "lxd.sock"),
		filepath.Join(home, "work", "api", "dev.sock"), // found by the scan
		filepath.Join(home, "src", "beside.sock"),      // in a folder that holds the workspace
		filepath.Join(ws, "tmp", "app.sock"),           // in the workspace
	}
	for _, s := range socks {
		listen(t, s)
	}
	// Deeper than any scan looks, but linked into the workspace.
	deep := filepath.Join(home, "a", "b", "c", "d", "e", "f", "linked.sock")
	listen(t, deep)
	if err := os.Symlink(deep, filepath.Join(ws, "docker.sock")); err != nil {
		t.Fatal(err)
	}
	socks = append(socks, filepath.Join(ws, "docker.sock"))
	t.Setenv("HOME", home)
	t.Setenv(connectEnv, "1")
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws, Env: []string{connectEnv}})
	copyFile(t, mustExe(t), filepath.Join(ws, "try"))
	out, _ := runLine(t, sb, "./try "+strings.Join(socks, " "))
	for _, s := range socks {
		if want := filepath.Base(s) + ": refused\n"; !strings.Contains(out, want) || strings.Contains(out, "answered") {
			t.Errorf("%s answered a command:\n%s", s, out)
		}
	}
	// The sockets themselves are untouched, outside.
	if out := tryConnectHere(t, socks[0]); out != "answered" {
		t.Errorf("outside the sandbox the socket says %q", out)
	}
}

func tryConnectHere(t *testing.T, p string) string {
	t.Helper()
	c, err := net.Dial("unix", p)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	buf := make([]byte, 64)
	n, _ := c.Read(buf)
	return strings.TrimSpace(string(buf[:n]))
}

func mustExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// Regression (issue 25): shell start-up and history files and .env files
// outside the workspace were readable by commands: that is where people
// keep keys.
func TestBwrapHidesShellAndEnvFilesOutsideTheWorkspace(t *testing.T) {
	needBwrap(t)
	root := outsideTmp(t)
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "src", "app", "web")
	secrets := []string{
		".bashrc", ".profile", ".bash_profile", ".zshrc", ".zshenv", ".bash_history", ".zsh_history",
		".config/fish/config.fish", ".local/share/fish/fish_history", ".python_history", ".psql_history",
		".env", "other/.env", "other/deploy/.env.production", "other/prod.env", "other/.envrc",
		"src/app/.env", "src/.env.local",
	}
	for _, s := range secrets {
		writeFile(t, filepath.Join(home, s), "export GITHUB_TOKEN=made-up-for-the-test\n", 0o600)
	}
	writeFile(t, filepath.Join(ws, ".env"), "MINE=1\n", 0o644)
	writeFile(t, filepath.Join(home, "other", "notes.txt"), "readable\n", 0o644)
	// Up the workspace's way, outside the home.
	writeFile(t, filepath.Join(root, ".env"), "export GITHUB_TOKEN=made-up-for-the-test\n", 0o600)
	paths := []string{filepath.Join(root, ".env")}
	t.Setenv("HOME", home)
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
	for _, s := range secrets {
		paths = append(paths, filepath.Join(home, s))
	}
	expect(t, sb, "cat "+strings.Join(paths, " ")+" 2>/dev/null | wc -c", "0\n")
	expect(t, sb, "cat .env "+filepath.Join(home, "other", "notes.txt"), "MINE=1\nreadable\n")
}

// Regression (issue 25): a setuid bit a command set survived in a kept
// workspace, where the program then runs with its owner's rights (root's,
// when nightshift runs as root).
func TestSetuidBitsCommandsLeaveAreRemovedAndNamed(t *testing.T) {
	for _, mode := range []Mode{None, Bwrap} {
		t.Run(string(mode), func(t *testing.T) {
			if mode == Bwrap {
				needBwrap(t)
			}
			ws := t.TempDir()
			writeFile(t, filepath.Join(ws, "mine"), "#!/bin/sh\n", 0o755|os.ModeSetuid)
			sb := newSandbox(t, Config{Mode: mode, Dir: ws})
			out, _ := runLine(t, sb, "cp /bin/sh sh && chmod 4755 sh && touch g && chmod 2755 g && mkdir -p d && cp /bin/sh d/both && chmod 6755 d/both && "+
				"mkdir -p new/.git/hooks && cp /bin/sh new/.git/hooks/x && chmod 4755 new/.git/hooks/x && echo done")
			for _, want := range []string{
				"nightshift: this command left new/.git/hooks/x setuid",
				"nightshift: this command left sh setuid (-rwsr-xr-x); nightshift removed the bit (now -rwxr-xr-x)",
				"nightshift: this command left g setgid",
				"nightshift: this command left d/both setuid and setgid",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output %q does not say %q", out, want)
				}
			}
			for name, want := range map[string]os.FileMode{"sh": 0o755, "g": 0o755, "d/both": 0o755, "new/.git/hooks/x": 0o755, "mine": 0o755 | os.ModeSetuid} {
				fi, err := os.Lstat(filepath.Join(ws, name))
				if err != nil {
					t.Fatal(err)
				}
				if got := fi.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid); got != want {
					t.Errorf("%s: mode %s, want %s", name, got, want)
				}
			}
			if strings.Contains(out, "left mine") {
				t.Errorf("the user's own setuid file was named: %q", out)
			}
		})
	}
}

// Regression (issue 25): a command could make .nightshift/journal/... in
// a workspace that had no .nightshift, and the next run applied it.
func TestBwrapStateFolderIsReadOnlyWhetherItExistsOrNot(t *testing.T) {
	needBwrap(t)
	t.Run("missing: a placeholder that leaves nothing behind", func(t *testing.T) {
		ws := t.TempDir()
		sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
		out, _ := runLine(t, sb, "mkdir -p .nightshift/journal/r1 && echo made")
		if strings.Contains(out, "made") || !strings.Contains(out, "nightshift: .nightshift is read-only to commands") {
			t.Errorf("output %q", out)
		}
		expect(t, sb, "{ rmdir .nightshift || mv .nightshift x; } 2>/dev/null || echo refused", "refused\n")
		if _, err := os.Lstat(filepath.Join(ws, ".nightshift")); err == nil {
			t.Error("the placeholder is still in the workspace")
		}
	})
	t.Run("a file", func(t *testing.T) {
		ws := t.TempDir()
		writeFile(t, filepath.Join(ws, ".nightshift"), "", 0o644)
		sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
		expect(t, sb, "mkdir -p .nightshift/journal 2>/dev/null || echo refused", "refused\n")
	})
	t.Run("a symlink into the workspace", func(t *testing.T) {
		ws := t.TempDir()
		if err := os.Mkdir(filepath.Join(ws, "elsewhere"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("elsewhere", filepath.Join(ws, ".nightshift")); err != nil {
			t.Fatal(err)
		}
		sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
		expect(t, sb, "mkdir -p .nightshift/journal 2>/dev/null || echo refused", "refused\n")
	})
	t.Run("a placeholder a killed nightshift left is removed", func(t *testing.T) {
		ws := t.TempDir()
		if err := os.Mkdir(filepath.Join(ws, ".nightshift"), 0); err != nil {
			t.Fatal(err)
		}
		sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
		expect(t, sb, "echo hi", "hi\n")
		if _, err := os.Lstat(filepath.Join(ws, ".nightshift")); err == nil {
			t.Error("the leftover placeholder is still there")
		}
	})
}

// Regression (issue 25): commands could change the hooks behind
// core.hooksPath (husky's .husky/), make the hooks folder it names, and
// change the git folder behind a .git file (--separate-git-dir) or a
// config file git includes.
func TestBwrapKeepsWhatGitRunsReadOnly(t *testing.T) {
	needBwrap(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ws := t.TempDir()
	files := map[string]string{
		".git/config":        "[core]\n\thooksPath = .husky\n[include]\n\tpath = ../team.gitconfig\n\tpath = ../missing.gitconfig\n",
		".husky/pre-commit":  "npm test\n",
		"team.gitconfig":     "[user]\n\tname = x\n",
		"lib/.git":           "gitdir: ../gitdata/lib\n",
		"gitdata/lib/config": "[core]\n\thooksPath = githooks\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(ws, name), content, 0o644)
	}
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
	tests := []struct{ name, line string }{
		{"husky's hook", "echo 'touch PWNED' >> .husky/pre-commit"},
		{"a new hook in husky's folder", "echo 'touch PWNED' > .husky/post-checkout"},
		{"the config git includes", "echo '[core] fsmonitor = touch PWNED' >> team.gitconfig"},
		{"a config git would include, not there yet", "echo '[core] fsmonitor = touch PWNED' > missing.gitconfig && grep -q PWNED missing.gitconfig"},
		{"the git folder behind a .git file", "mkdir -p gitdata/lib/hooks"},
		{"a hooks folder not there yet", "mkdir -p lib/githooks && echo x > lib/githooks/pre-commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, sb, "{ "+tt.line+"; } 2>/dev/null && echo changed || echo refused", "refused\n")
		})
	}
	for name, content := range files {
		if b, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(b) != content {
			t.Errorf("%s = %q, %v", name, b, err)
		}
	}
	for _, p := range []string{".husky/post-checkout", "missing.gitconfig", "gitdata/lib/hooks", "lib/githooks"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s is in the workspace after the commands", p)
		}
	}
	expect(t, sb, "echo ok > lib/file && cat lib/file", "ok\n")
}

// The mode of a placeholder is the mark of a leftover; a folder of the
// user's with another mode, or with something in it, is never removed.
func TestAPlaceholderLeavesTheUsersFoldersAlone(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []struct {
		name string
		mode os.FileMode
		file bool
	}{{"empty-0755", 0o755, false}, {"full-0", 0, true}} {
		p := filepath.Join(ws, d.name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if d.file {
			writeFile(t, filepath.Join(p, "x"), "", 0o644)
		}
		if err := os.Chmod(p, d.mode); err != nil {
			t.Fatal(err)
		}
		if !holdPlaceholder(p, true) {
			t.Fatalf("%s: not held", d.name)
		}
		releasePlaceholder(p)
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", d.name)
		}
		os.Chmod(p, 0o755) //nolint:errcheck // for the cleanup
	}
	p := filepath.Join(ws, "new")
	for range 2 {
		if !holdPlaceholder(p, true) {
			t.Fatal("not held")
		}
	}
	releasePlaceholder(p)
	if _, err := os.Lstat(p); err != nil {
		t.Error("removed while still held")
	}
	releasePlaceholder(p)
	if _, err := os.Lstat(p); err == nil {
		t.Error("not removed by its last holder")
	}
}

// Regression (issue 25): a hooks folder that is a symlink was read-only
// where it led, but a command could put a folder of its own in the
// link's place, which git then runs hooks from.
func TestBwrapTellsOfAProtectedPathACommandPutInPlace(t *testing.T) {
	needBwrap(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\thooksPath = .githooks\n", 0o644)
	writeFile(t, filepath.Join(ws, "tools", "hooks", "pre-commit"), "npm test\n", 0o755)
	if err := os.Symlink("tools/hooks", filepath.Join(ws, ".githooks")); err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
	out, _ := runLine(t, sb, "rm .githooks && mkdir .githooks && echo 'touch PWNED' > .githooks/pre-commit && echo replaced")
	if !strings.Contains(out, "nightshift: this command made .githooks, the hooks folder of the repository at . (core.hooksPath)") {
		t.Errorf("output %q does not tell of the hooks folder put in place of the link", out)
	}
	expect(t, sb, "{ echo more >> .githooks/pre-commit; } 2>/dev/null || echo refused", "refused\n")
}
