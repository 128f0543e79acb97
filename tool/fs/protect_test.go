package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/tool"
)

const gitConfig = "[core]\n\trepositoryformatversion = 0\n"

// Regression (issue 11): with commands denied, `edit_file .git/config`
// added `fsmonitor = "touch PWNED"`, and the next git command (a cmd:
// check's, or the user's) ran it.
func TestAWriteToolCannotChangeGit(t *testing.T) {
	f := setup(t)
	write(t, filepath.Join(f.dir, ".git", "config"), gitConfig)
	write(t, filepath.Join(f.dir, "sub", "keep.txt"), "")
	for name, target := range map[string]string{"cfg": ".git/config", "g": ".git", "sub/up": "../.git"} {
		if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, tool string
		input      in
	}{
		{"edit_file .git/config", "edit_file", in{"path": ".git/config", "old": "[core]", "new": "[core]\n\tfsmonitor = \"touch PWNED\""}},
		{"write_file .git/config", "write_file", in{"path": ".git/config", "content": "[core]\n\tfsmonitor = \"touch PWNED\"\n"}},
		{"in another case", "write_file", in{"path": ".GIT/config", "content": "x"}},
		{"a hook", "write_file", in{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch PWNED\n"}},
		{"a .git file in a subfolder (gitdir: elsewhere)", "write_file", in{"path": "sub/.git", "content": "gitdir: ../evil\n"}},
		{"with a trailing dot", "write_file", in{"path": ".git./config", "content": "x"}},
		{"with an invisible character", "write_file", in{"path": ".g\u200cit/config", "content": "x"}},
		{"by its short name", "write_file", in{"path": "GIT~1/config", "content": "x"}},
		{"through a symlink to a file in it", "edit_file", in{"path": "cfg", "old": "[core]", "new": "[core]\n\tfsmonitor = x"}},
		{"through a symlink to it", "write_file", in{"path": "g/config", "content": "x"}},
		{"through a symlink in a subfolder", "write_file", in{"path": "sub/up/hooks/post-checkout", "content": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.call(t, tt.tool, tt.input)
			if !res.IsError || !strings.Contains(res.Content, ".git folder") {
				t.Errorf("result %+v; want an error saying .git cannot be changed", res)
			}
		})
	}
	if got := read(t, filepath.Join(f.dir, ".git", "config")); got != gitConfig {
		t.Errorf(".git/config changed: %q", got)
	}
	for _, p := range []string{".git/hooks", "sub/.git", ".git.", "GIT~1"} {
		if _, err := os.Lstat(filepath.Join(f.dir, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	// Reading stays allowed, and so do names that only look alike.
	if res := f.call(t, "read_file", in{"path": ".git/config"}); res.IsError || res.Content != gitConfig {
		t.Errorf("read_file .git/config: %+v", res)
	}
	for _, p := range []string{".gitignore", "docs/.github/workflow.yml", "my.git/x"} {
		if res := f.call(t, "write_file", in{"path": p, "content": "x\n"}); res.IsError {
			t.Errorf("write_file %s: %+v", p, res)
		}
	}
}

// within fails the test when f has not returned in time: what is
// measured is "it returns", not how fast.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %s: hung", d)
	}
}

// Regression (issue 11): `mkfifo pipe` and then `edit_file pipe` hung the
// run until it was killed.
func TestAFIFOIsRefusedNotOpened(t *testing.T) {
	f := setup(t)
	if err := syscall.Mkfifo(filepath.Join(f.dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("pipe", filepath.Join(f.dir, "pipe-link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool  string
		input in
	}{
		{"read_file", in{"path": "pipe"}},
		{"edit_file", in{"path": "pipe", "old": "a", "new": "b"}},
		{"write_file", in{"path": "pipe", "content": "x"}},
		{"read_file", in{"path": "pipe-link"}},
	} {
		t.Run(c.tool+" "+c.input["path"], func(t *testing.T) {
			within(t, 30*time.Second, func() {
				res := f.call(t, c.tool, c.input)
				if !res.IsError || !strings.Contains(res.Content, "is a FIFO (named pipe), not a regular file") {
					t.Errorf("result %+v", res)
				}
			})
		})
	}
	if fi, err := os.Lstat(filepath.Join(f.dir, "pipe")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi, err)
	}
}

func TestASocketIsRefused(t *testing.T) {
	f := setup(t)
	// A socket file made by binding a Unix socket there.
	sock := filepath.Join(f.dir, "s.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Skipf("bind: %v", err)
	}
	if res := f.call(t, "read_file", in{"path": "s.sock"}); !res.IsError || !strings.Contains(res.Content, "is a socket") {
		t.Errorf("result %+v", res)
	}
}

// Regression (issue 25): the file tools could write the hooks behind
// core.hooksPath (husky's .husky/), the git folder behind a .git file
// (--separate-git-dir), and a config file that git includes; git runs
// or reads what is there as the user at the next git command.
func TestAWriteToolCannotChangeWhatGitRunsOutsideDotGit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	f := setup(t)
	write(t, filepath.Join(f.dir, ".git", "config"), "[core]\n\thooksPath = .husky\n[include]\n\tpath = ../team.gitconfig\n")
	write(t, filepath.Join(f.dir, ".husky", "pre-commit"), "npm test\n")
	write(t, filepath.Join(f.dir, "team.gitconfig"), "[user]\n\tname = x\n")
	write(t, filepath.Join(f.dir, "lib", ".git"), "gitdir: ../gitdata/lib\n")
	write(t, filepath.Join(f.dir, "gitdata", "lib", "config"), "[core]\n\thooksPath = githooks\n")
	if err := os.Symlink(".husky", filepath.Join(f.dir, "h")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool string
		input      in
		why        string
	}{
		{"husky's hook", "write_file", in{"path": ".husky/pre-commit", "content": "touch PWNED\n"}, "core.hooksPath"},
		{"a new hook in husky's folder", "write_file", in{"path": ".husky/post-checkout", "content": "touch PWNED\n"}, "core.hooksPath"},
		{"husky's folder in another case", "write_file", in{"path": ".HUSKY/post-checkout", "content": "x"}, "core.hooksPath"},
		{"through a symlink to husky's folder", "edit_file", in{"path": "h/pre-commit", "old": "npm test", "new": "touch PWNED"}, "core.hooksPath"},
		{"the config git includes", "edit_file", in{"path": "team.gitconfig", "old": "[user]", "new": "[core]\n\tfsmonitor = \"touch PWNED\"\n[user]"}, "includes"},
		{"the git folder behind a .git file", "write_file", in{"path": "gitdata/lib/hooks/post-checkout", "content": "touch PWNED\n"}, "gitdir:"},
		{"a nested repository's hooks folder that does not exist yet", "write_file", in{"path": "lib/githooks/pre-commit", "content": "touch PWNED\n"}, "core.hooksPath"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.call(t, tt.tool, tt.input)
			if !res.IsError || !strings.Contains(res.Content, tt.why) || !strings.Contains(res.Content, "never change") {
				t.Errorf("result %+v; want an error naming the protected path and why (%s)", res, tt.why)
			}
		})
	}
	if got := read(t, filepath.Join(f.dir, ".husky", "pre-commit")); got != "npm test\n" {
		t.Errorf(".husky/pre-commit changed: %q", got)
	}
	for _, p := range []string{".husky/post-checkout", "gitdata/lib/hooks", "lib/githooks"} {
		if _, err := os.Lstat(filepath.Join(f.dir, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}

	t.Run("a repository made after the tools were", func(t *testing.T) {
		write(t, filepath.Join(f.dir, "later", ".git", "config"), "[core]\n\thooksPath = ../later-hooks\n")
		if res := f.call(t, "write_file", in{"path": "later-hooks/pre-push", "content": "x"}); !res.IsError {
			t.Errorf("result %+v", res)
		}
	})
	// Everything else stays writable.
	for _, p := range []string{"src/main.go", ".huskyrc", "husky/pre-commit"} {
		if res := f.call(t, "write_file", in{"path": p, "content": "x\n"}); res.IsError {
			t.Errorf("write_file %s: %+v", p, res)
		}
	}
}

// Issue 25 (the trust review): the walk that finds the paths git runs
// from ran under context.Background, so a run's time limit or a signal
// did not stop it, in a workspace where it is slow (a command can make
// one). It runs under the call's context now, and a write whose check
// was stopped is refused: a list cut short could miss a hooks folder.
func TestAWriteWhoseProtectedPathCheckIsStoppedIsRefused(t *testing.T) {
	f := setup(t)
	// More entries than the walk reads between two looks at the context.
	for i := range 3000 {
		if err := os.Mkdir(filepath.Join(f.dir, "d"+strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	// The tools themselves, under a context that ends: the set refuses a
	// call whose context ended before it started, not one that ends
	// while the walk goes on.
	for _, tt := range []struct {
		tool interface {
			Run(context.Context, json.RawMessage) tool.Result
		}
		input string
	}{
		{NewWriteFile(f.root), `{"path":"new.txt","content":"x"}`},
		{NewEditFile(f.root), `{"path":"README.md","old":"Demo","new":"Done"}`},
	} {
		res := tt.tool.Run(ctx, json.RawMessage(tt.input))
		if !res.IsError || !strings.Contains(res.Content, "stopping") {
			t.Errorf("%T under a cancelled context: %+v, want an error saying the run is stopping", tt.tool, res)
		}
	}
	if _, err := os.Lstat(filepath.Join(f.dir, "new.txt")); err == nil {
		t.Error("new.txt was written")
	}
	if got := read(t, filepath.Join(f.dir, "README.md")); got != "# Demo\n" {
		t.Errorf("README.md = %q", got)
	}
}
