package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/workspace"
)

// gitHome gives the test a home, an XDG config folder and no system
// config of its own, so that the machine's git config plays no part.
func gitHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_SYSTEM", "")
	return home
}

// tree writes files (name → content) under dir; a name ending in / is a
// folder.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// protectedRels returns the workspace-relative protected paths of ws.
func protectedRels(t *testing.T, ws string) map[string]workspace.Protected {
	t.Helper()
	ps, err := workspace.ProtectedPaths(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]workspace.Protected{}
	for _, p := range ps {
		out[p.Rel] = p
	}
	return out
}

func keys(m map[string]workspace.Protected) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestProtectedPathsFindWhatGitRunsOrReads(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		// why is a word the reason of the first wanted path must hold.
		why string
	}{
		{
			name:  "every .git, nested and as a file",
			files: map[string]string{".git/config": "", "sub/.git/HEAD": "", "mod/.GIT": "gitdir: ../.git/modules/mod\n"},
			want:  []string{".git", "mod/.GIT", "sub/.git"},
		},
		{
			name:  "husky's hooks folder (core.hooksPath, relative)",
			files: map[string]string{".git/config": "[core]\n\thooksPath = .husky\n", ".husky/pre-commit": "npm test\n"},
			want:  []string{".git", ".husky"}, why: "core.hooksPath",
		},
		{
			name:  "husky 9 (.husky/_) protects .husky, whose scripts it runs",
			files: map[string]string{".git/config": "[core]\n\thooksPath = .husky/_\n", ".husky/_/h": "", ".husky/pre-commit": ""},
			want:  []string{".git", ".husky"},
		},
		{
			name:  "a hooks folder that does not exist yet",
			files: map[string]string{".git/config": "[core]\n\thooksPath = tools/git-hooks\n"},
			want:  []string{".git", "tools/git-hooks"},
		},
		{
			name:  "spelt as git reads it: case, quotes, a key on the header's line, comments",
			files: map[string]string{".git/config": "# hooks\n[CORE] HooksPath = \"my hooks\" ; where they live\n"},
			want:  []string{".git", "my hooks"},
		},
		{
			name:  "a hooks path in the old [core.x] form names no core.hooksPath",
			files: map[string]string{".git/config": "[core.sub]\n\thooksPath = elsewhere\n"},
			want:  []string{".git"},
		},
		{
			name:  "a nested repository's hooks folder is relative to its own worktree",
			files: map[string]string{"app/.git/config": "[core]\nhooksPath=hooks\n"},
			want:  []string{"app/.git", "app/hooks"},
		},
		{
			name:  "--separate-git-dir: the folder a .git file points to",
			files: map[string]string{".git": "gitdir: gitdata\n", "gitdata/config": "[core]\n\thooksPath = .githooks\n"},
			want:  []string{".git", ".githooks", "gitdata"}, why: "a .git file",
		},
		{
			name:  "a .git file's target that does not exist yet",
			files: map[string]string{"sub/.git": "gitdir: ../elsewhere/sub.git\r\n"},
			want:  []string{"elsewhere/sub.git", "sub/.git"},
		},
		{
			name: "a worktree: its git folder, the common folder it names, and the hooks of the common config",
			files: map[string]string{
				"main/.git/config":                 "[core]\n\thooksPath = .hooks\n",
				"main/.git/worktrees/wt/gitdir":    "",
				"main/.git/worktrees/wt/commondir": "../..\n",
				"wt/.git":                          "gitdir: ../main/.git/worktrees/wt\n",
			},
			want: []string{"main/.git", "main/.hooks", "wt/.git", "wt/.hooks"},
		},
		{
			name: "a config file git includes, and the hooks path it sets",
			files: map[string]string{
				".git/config":      "[include]\n\tpath = ../shared.gitconfig\n[includeIf \"gitdir:~/work/\"]\n\tpath = ../missing.gitconfig\n",
				"shared.gitconfig": "[core]\n\thooksPath = ci/hooks\n",
			},
			want: []string{".git", "ci/hooks", "missing.gitconfig", "shared.gitconfig"},
		},
		{
			name: "a program that git runs, named by a path",
			files: map[string]string{".git/config": "[core]\n\tfsmonitor = tools/fsmonitor.sh\n\teditor = vi\n" +
				"[filter \"lfs\"]\n\tclean = \"scripts/clean filter\" %f\n[alias]\n\tst = !./bin/status --short\n[core]\n\tfsmonitor = true\n"},
			want: []string{".git", "bin/status", "scripts/clean", "tools/fsmonitor.sh"},
		},
		{
			name:  "a remote that is a bare repository in the workspace",
			files: map[string]string{".git/config": "[remote \"local\"]\n\turl = ../ws/backup.git\n\tpushurl = git@host:x.git\n", "backup.git/hooks/": ""},
			want:  []string{".git", "backup.git"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gitHome(t)
			parent := t.TempDir()
			ws := filepath.Join(parent, "ws")
			tree(t, ws, tt.files)
			got := protectedRels(t, ws)
			if !slices.Equal(keys(got), tt.want) {
				t.Fatalf("protected = %q, want %q", keys(got), tt.want)
			}
			if tt.why != "" {
				var whys []string
				for _, p := range got {
					whys = append(whys, p.Why)
				}
				if !strings.Contains(strings.Join(whys, "\n"), tt.why) {
					t.Errorf("reasons %q do not say %q", whys, tt.why)
				}
			}
			for _, p := range got {
				if p.Path != filepath.Join(mustReal(t, ws), filepath.FromSlash(p.Rel)) {
					t.Errorf("%s: Path %s is not under the workspace", p.Rel, p.Path)
				}
			}
		})
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The user's own config names hooks for every repository: a relative
// core.hooksPath there means each repository's folder of that name.
func TestProtectedPathsReadTheUsersGitConfig(t *testing.T) {
	home := gitHome(t)
	tree(t, home, map[string]string{".config/git/config": "[core]\n\thooksPath = .githooks\n", ".gitconfig": "[include]\n\tpath = ~/extra.gitconfig\n", "extra.gitconfig": "[core]\n\tsshCommand = ./ssh-wrapper -v\n"})
	ws := t.TempDir()
	tree(t, ws, map[string]string{".git/HEAD": "", "lib/.git/HEAD": ""})
	got := keys(protectedRels(t, ws))
	want := []string{".git", ".githooks", "lib/.git", "lib/.githooks", "lib/ssh-wrapper", "ssh-wrapper"}
	if !slices.Equal(got, want) {
		t.Fatalf("protected = %q, want %q", got, want)
	}
}

// What the workspace holds is hostile: a config that is a link out of the
// workspace is not read, a FIFO where git keeps a file is never opened (it
// would wait for a writer), and a hooks path through a symlink out names
// nothing of the workspace's.
func TestProtectedPathsTreatTheWorkspaceAsHostile(t *testing.T) {
	gitHome(t)
	outside := t.TempDir()
	tree(t, outside, map[string]string{"config": "[core]\n\thooksPath = from-outside\n"})
	ws := t.TempDir()
	tree(t, ws, map[string]string{"a/.git/HEAD": "", "b/.git/config": "[core]\n\thooksPath = out/hooks\n", "c/.git/HEAD": ""})
	if err := os.Symlink(filepath.Join(outside, "config"), filepath.Join(ws, "a", ".git", "config")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "b", "out")); err != nil {
		t.Fatal(err)
	}
	for _, fifo := range []string{"c/.git/config", "c/.git/commondir", "d/.git"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, fifo)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(ws, fifo), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	done := make(chan map[string]workspace.Protected, 1)
	go func() { done <- protectedRels(t, ws) }()
	var got map[string]workspace.Protected
	select {
	case got = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("discovery hung on a FIFO")
	}
	want := []string{"a/.git", "b/.git", "c/.git", "d/.git"}
	if !slices.Equal(keys(got), want) {
		t.Fatalf("protected = %q, want %q", keys(got), want)
	}
}

func TestProtectedPathsStopWithTheContext(t *testing.T) {
	gitHome(t)
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(ws, "d", strconv.Itoa(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := workspace.ProtectedPaths(ctx, ws); err == nil {
		t.Error("a walk with an ended context did not say so")
	}
}

func TestWalkProtectedVisitsEveryOtherEntry(t *testing.T) {
	gitHome(t)
	ws := t.TempDir()
	tree(t, ws, map[string]string{".git/config": "", ".git/hooks/x": "", "a/b.txt": "", "c.txt": ""})
	var seen []string
	_, err := workspace.WalkProtected(context.Background(), ws, func(p string, _ os.DirEntry) {
		rel, _ := filepath.Rel(ws, p)
		seen = append(seen, filepath.ToSlash(rel))
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if want := []string{"a", "a/b.txt", "c.txt"}; !slices.Equal(seen, want) {
		t.Errorf("visited %q, want %q", seen, want)
	}
}

// Config given in the environment (GIT_CONFIG_COUNT, as git -c hands it
// on) names hooks too.
func TestProtectedPathsReadConfigFromTheEnvironment(t *testing.T) {
	gitHome(t)
	t.Setenv("GIT_CONFIG_COUNT", "2")
	t.Setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
	t.Setenv("GIT_CONFIG_VALUE_0", "env-hooks")
	t.Setenv("GIT_CONFIG_KEY_1", "filter.Mine.clean")
	t.Setenv("GIT_CONFIG_VALUE_1", "./tools/clean")
	ws := t.TempDir()
	tree(t, ws, map[string]string{".git/HEAD": ""})
	got := keys(protectedRels(t, ws))
	if want := []string{".git", "env-hooks", "tools/clean"}; !slices.Equal(got, want) {
		t.Fatalf("protected = %q, want %q", got, want)
	}
}
