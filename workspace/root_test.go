package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixture is a workspace beside a folder that must never be touched.
type fixture struct {
	root    *Root
	dir     string // the workspace
	outside string // a sibling folder outside it
}

const secret = "outside: do not touch\n"

// setup builds:
//
//	outside/secret.txt
//	ws/docs/a.md
//	ws/.nightshift/journal
//	ws/good-link   -> docs/a.md
//	ws/out-rel     -> ../outside/secret.txt
//	ws/out-abs     -> <abs>/outside/secret.txt
//	ws/outdir      -> ../outside
//	ws/docs/up     -> ../../outside
//	ws/state-link  -> .nightshift
//	ws/self        -> .
func setup(t *testing.T) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{dir: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	mustWrite(t, filepath.Join(f.outside, "secret.txt"), secret)
	mustWrite(t, filepath.Join(f.dir, "docs", "a.md"), "alpha\n")
	mustWrite(t, filepath.Join(f.dir, ".nightshift", "journal"), "journal\n")
	links := map[string]string{
		"good-link":  "docs/a.md",
		"out-rel":    "../outside/secret.txt",
		"out-abs":    filepath.Join(f.outside, "secret.txt"),
		"outdir":     "../outside",
		"docs/up":    "../../outside",
		"state-link": ".nightshift",
		"self":       ".",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	f.root = r
	return f
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tree lists every path under dir with its content, to show that nothing
// changed there.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.IsDir():
			out[rel] = "dir"
		default:
			out[rel] = mustRead(t, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestConfinement(t *testing.T) {
	tests := []struct {
		name string
		path string
		want error
	}{
		{"a path climbing out with .. is refused", "../outside/secret.txt", ErrOutside},
		{"a path that climbs out after going in is refused", "docs/../../outside/secret.txt", ErrOutside},
		{"an absolute path is refused", "/etc/passwd", ErrOutside},
		{"a symlink pointing out with a relative target is refused", "out-rel", ErrOutside},
		{"a symlink pointing out with an absolute target is refused", "out-abs", ErrOutside},
		{"a file below a symlinked directory pointing out is refused", "outdir/secret.txt", ErrOutside},
		{"a new file below a symlinked directory pointing out is refused", "outdir/new.txt", ErrOutside},
		{"a nested symlinked directory pointing out is refused", "docs/up/secret.txt", ErrOutside},
		{"the state folder is refused", ".nightshift/journal", ErrStateDir},
		{"the state folder is refused whatever its case", ".NightShift/journal", ErrStateDir},
		{"the state folder itself is refused", ".nightshift", ErrStateDir},
		{"the state folder reached through a symlink is refused", "state-link/journal", ErrStateDir},
		{"the state folder reached through a link to the root is refused", "self/.nightshift/journal", ErrStateDir},
		{"the empty path is refused", "", ErrInvalidPath},
	}
	ops := []struct {
		name string
		do   func(r *Root, p string) error
	}{
		{"read", func(r *Root, p string) error { _, err := r.ReadFile(p); return err }},
		{"head", func(r *Root, p string) error { _, _, err := r.ReadHead(p, 10); return err }},
		{"stat", func(r *Root, p string) error { _, err := r.Stat(p); return err }},
		{"list", func(r *Root, p string) error { _, err := r.ReadDir(p); return err }},
		{"write", func(r *Root, p string) error { return r.WriteFile(p, []byte("pwned\n"), 0o644) }},
		{"edit", func(r *Root, p string) error {
			_, err := r.Edit(p, func([]byte) ([]byte, error) { return []byte("pwned\n"), nil })
			return err
		}},
	}
	f := setup(t)
	beforeOut, beforeIn := tree(t, f.outside), tree(t, f.dir)
	for _, tt := range tests {
		for _, op := range ops {
			t.Run(op.name+": "+tt.name, func(t *testing.T) {
				err := op.do(f.root, tt.path)
				if !errors.Is(err, tt.want) {
					t.Fatalf("%s(%q) = %v, want %v", op.name, tt.path, err, tt.want)
				}
				var pe *PathError
				if !errors.As(err, &pe) || pe.Path != tt.path {
					t.Errorf("error %v does not name the path %q as given", err, tt.path)
				}
				if !strings.HasPrefix(err.Error(), fmt.Sprintf("path %q ", tt.path)) {
					t.Errorf("message %q does not start with the path", err)
				}
			})
		}
	}
	if diff := cmp.Diff(beforeOut, tree(t, f.outside)); diff != "" {
		t.Errorf("the folder outside changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(beforeIn, tree(t, f.dir)); diff != "" {
		t.Errorf("the workspace changed (-before +after):\n%s", diff)
	}
	if got := f.root.Changed(); len(got) != 0 {
		t.Errorf("Changed() = %v after refused changes, want none", got)
	}
}

func TestMessages(t *testing.T) {
	f := setup(t)
	tests := []struct {
		name, path, want string
	}{
		{"dot-dot says it leaves the workspace", "../x", `path "../x" leaves the workspace; give a path inside it, relative to its root`},
		{"a symlink names the link", "outdir/x", `path "outdir/x" leaves the workspace (through the symlink "outdir"); give a path inside it, relative to its root`},
		{"the state folder is named", ".nightshift/j", `path ".nightshift/j" is in the state folder .nightshift, which tools may not touch`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.root.ReadFile(tt.path)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestSymlinksInsideTheWorkspaceAreFollowed(t *testing.T) {
	f := setup(t)
	got, err := f.root.ReadFile("good-link")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "alpha\n" {
		t.Errorf("read through the link = %q", got)
	}
	if err := f.root.WriteFile("self/docs/../good-link", []byte("beta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, filepath.Join(f.dir, "docs", "a.md")); got != "beta\n" {
		t.Errorf("the link's target holds %q, want the new content", got)
	}
	if fi, err := os.Lstat(filepath.Join(f.dir, "good-link")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link itself was replaced: %v %v", fi, err)
	}
	if diff := cmp.Diff([]string{"docs/a.md"}, f.root.Changed()); diff != "" {
		t.Errorf("Changed() names the link's target (-want +got):\n%s", diff)
	}
}

func TestRemovingALinkPointingOutLeavesItsTarget(t *testing.T) {
	f := setup(t)
	if err := f.root.Remove("out-rel"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(f.dir, "out-rel")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link is still there: %v", err)
	}
	if got := mustRead(t, filepath.Join(f.outside, "secret.txt")); got != secret {
		t.Errorf("the target outside changed: %q", got)
	}
}

func TestReadDirNeverShowsTheStateFolder(t *testing.T) {
	f := setup(t)
	for _, p := range []string{".", "self", "docs/.."} {
		t.Run("listing "+p+" hides it", func(t *testing.T) {
			entries, err := f.root.ReadDir(p)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			want := []string{"docs", "good-link", "out-abs", "out-rel", "outdir", "self", "state-link"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	t.Run("a missing directory is an error", func(t *testing.T) {
		if _, err := Open(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want not-exist", err)
		}
	})
	t.Run("it creates nothing, in the workspace or its .nightshift folder", func(t *testing.T) {
		dir := t.TempDir()
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := r.WriteFile("a.md", []byte("a"), 0o644); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || entries[0].Name() != "a.md" {
			t.Fatalf("the workspace holds %v after one write, want a.md alone", entries)
		}
	})
	t.Run("a relative directory is made absolute", func(t *testing.T) {
		r, err := Open(".")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		wd, _ := os.Getwd()
		if r.Dir() != wd {
			t.Errorf("Dir() = %q, want %q", r.Dir(), wd)
		}
	})
}

func TestErrorsNeverShowTheWorkspacesAbsolutePath(t *testing.T) {
	f := setup(t)
	if err := os.Mkdir(filepath.Join(f.dir, "locked"), 0o000); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		do   func() error
	}{
		{"a missing file", func() error { _, err := f.root.ReadFile("docs/nope.md"); return err }},
		{"a missing folder on the way", func() error { _, err := f.root.ReadFile("nope/a.md"); return err }},
		{"a file used as a folder", func() error { _, err := f.root.ReadFile("docs/a.md/x"); return err }},
		{"a file used as a folder when writing", func() error { return f.root.WriteFile("docs/a.md/x", nil, 0o644) }},
		{"a directory read as a file", func() error { _, _, err := f.root.ReadHead("docs", 10); return err }},
		{"a locked folder", func() error { _, err := f.root.ReadFile("locked/x"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is named by its relative path", func(t *testing.T) {
			err := tt.do()
			if err == nil {
				if tt.name == "a locked folder" {
					t.Skip("running as root, which reads a locked folder")
				}
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), f.dir) {
				t.Errorf("error %q shows the absolute path", err)
			}
		})
	}
}

func TestLinksBetweenNestedFoldersResolveInside(t *testing.T) {
	f := setup(t)
	mustWrite(t, filepath.Join(f.dir, "a", "b", "c", "deep.md"), "deep\n")
	if err := os.Symlink("../../docs", filepath.Join(f.dir, "a", "b", "to-docs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../b/c", filepath.Join(f.dir, "a", "b", "c", "loop")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"a/b/to-docs/a.md", "alpha\n"},
		{"a/b/c/loop/loop/loop/deep.md", "deep\n"},
		{"a/b/to-docs/../c/deep.md", "deep\n"}, // ".." is taken lexically, before links
	}
	for _, tt := range tests {
		t.Run(tt.path+" is read", func(t *testing.T) {
			got, err := f.root.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("a link cycle is refused", func(t *testing.T) {
		if err := os.Symlink("cycle", filepath.Join(f.dir, "cycle")); err != nil {
			t.Fatal(err)
		}
		if _, err := f.root.ReadFile("cycle"); !errors.Is(err, ErrInvalidPath) || !strings.Contains(err.Error(), "too many levels of symlinks") {
			t.Errorf("err = %v", err)
		}
	})
}
