package statedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if err == nil || !strings.Contains(err.Error(), "--state-dir") {
		t.Fatalf("want a refusal naming --state-dir, got %v", err)
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
