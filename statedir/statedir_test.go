package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBaseFollowsTheDocumentedOrder(t *testing.T) {
	home := func() (string, error) { return "/home/u", nil }
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name     string
		override string
		env      map[string]string
		want     string
	}{
		{"the flag wins over everything", "/flag", map[string]string{Env: "/env", "XDG_STATE_HOME": "/xdg"}, "/flag"},
		{"NIGHTSHIFT_STATE_DIR wins over XDG", "", map[string]string{Env: "/env", "XDG_STATE_HOME": "/xdg"}, "/env"},
		{"XDG_STATE_HOME gets a nightshift folder", "", map[string]string{"XDG_STATE_HOME": "/xdg"}, "/xdg/nightshift"},
		{"a relative XDG_STATE_HOME is ignored, as the spec says", "", map[string]string{"XDG_STATE_HOME": "rel"}, "/home/u/.local/state/nightshift"},
		{"else the home folder", "", nil, "/home/u/.local/state/nightshift"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := base(tt.override, env(tt.env), home)
			if err != nil || got != tt.want {
				t.Fatalf("base = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := base("", env(nil), func() (string, error) { return "", errors.New("no home") }); err == nil || !strings.Contains(err.Error(), Env) {
		t.Fatalf("without a home the error must say what to set, got %v", err)
	}
}

func TestTwoSpellingsOfOneWorkspaceShareOneStateFolder(t *testing.T) {
	d := t.TempDir()
	ws := filepath.Join(d, "project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(d, "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(d, "state")
	a, err := Workspace(base, ws)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Workspace(base, link+"/.")
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("%s and %s differ", a, b)
	}
	if len(filepath.Base(a)) != keyLen || filepath.Base(filepath.Dir(a)) != WorkspacesName {
		t.Fatalf("layout: %s", a)
	}
	fi, err := os.Stat(a)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("state folder mode: %v %v", fi, err)
	}
	real, _ := filepath.EvalSymlinks(ws)
	if got := WorkspaceOf(a); got != real {
		t.Fatalf("WorkspaceOf = %q, want %q", got, real)
	}
}

func TestAStateDirectoryInsideTheWorkspaceIsRefused(t *testing.T) {
	ws := t.TempDir()
	_, err := Workspace(filepath.Join(ws, ".state"), ws)
	if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), "--state-dir") {
		t.Fatalf("want ErrUnusable naming --state-dir, got %v", err)
	}
}

func TestAMissingWorkspaceIsNamed(t *testing.T) {
	_, err := Key(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("got %v", err)
	}
}

func TestASymlinkWhereAStateFolderBelongsIsRefused(t *testing.T) {
	d := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(d, "limits")); err != nil {
		t.Fatal(err)
	}
	if _, err := Limits(d); err == nil {
		t.Fatal("a symlinked limits folder was accepted")
	}
}

func TestStateFilesAreNeverOpenedThroughASymlink(t *testing.T) {
	d := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("not yours\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(d, AuditName)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenFile(link, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
		f.Close()
		t.Fatal("OpenFile followed a symlink")
	}
	if _, err := ReadFile(link); err == nil {
		t.Fatal("ReadFile followed a symlink")
	}
	// WriteFile replaces the link itself; the file it pointed to is
	// untouched.
	if err := WriteFile(link, []byte("mine\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "not yours\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("after WriteFile: %v %v, want a private regular file", fi, err)
	}
}

func TestPruneRemovesOnlyOldRecordsAndCheckpoints(t *testing.T) {
	ws := t.TempDir()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	old, recent := now.Add(-31*24*time.Hour), now.Add(-29*24*time.Hour)
	files := map[string]time.Time{
		"runs/old.json":             old,
		"runs/recent.json":          recent,
		"checkpoints/old":           old,
		"journal/other/begin.json":  old, // a pending journal is never pruned
		"checkpoints/paused/x":      old, // nor the checkpoint of a paused run,
		"journal/paused/begin.json": old, // whose journal is pending
		"audit.jsonl":               old,
	}
	for name, mt := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(filepath.Join(ws, "checkpoints/paused"), old, old); err != nil {
		t.Fatal(err)
	}
	removed, err := Prune(ws, 30*24*time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(ws, "runs/old.json"), filepath.Join(ws, "checkpoints/old")}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	for name := range files {
		_, err := os.Stat(filepath.Join(ws, name))
		gone := slices.Contains(want, filepath.Join(ws, name))
		if gone != errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: gone=%v, stat err %v", name, gone, err)
		}
	}
	if removed, err := Prune(ws, 0, now); err != nil || len(removed) != 0 {
		t.Fatalf("keep 0 must keep everything: %v %v", removed, err)
	}
}

// TestAnUnusableStateDirectorySaysWhatToDoWithoutThePackagesName: the
// messages were "statedir: no usable state directory: …".
func TestAnUnusableStateDirectorySaysWhatToDoWithoutThePackagesName(t *testing.T) {
	noHome := func() (string, error) { return "", errors.New("$HOME is not defined") }
	_, err := base("", func(string) string { return "" }, noHome)
	ws := t.TempDir()
	_, err2 := Workspace(filepath.Join(ws, "state"), ws)
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"no home folder", err, "no home folder to keep nightshift's state in ($HOME is not defined): set $NIGHTSHIFT_STATE_DIR or give --state-dir"},
		{"a state directory in the workspace", err2, "where a run could delete it: choose another with --state-dir or $NIGHTSHIFT_STATE_DIR"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, ErrUnusable) || !strings.Contains(tt.err.Error(), tt.want) || strings.Contains(tt.err.Error(), "statedir:") {
				t.Errorf("error %v; want ErrUnusable saying %q, without statedir:", tt.err, tt.want)
			}
		})
	}
}
