package batch

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nightshift-dev/nightshift/taskfile"
)

// stateDir is where earlier versions kept a workspace's state (run
// records, journal, audit log), in the workspace: it belongs to the runs
// that made it, not to the copy. (State lives outside every workspace
// now: package statedir.)
const stateDir = ".nightshift"

// taskFolder names task i's workspace: its position, zero-padded so the
// folders sort in task order, and its name made safe for a path.
func taskFolder(i, n int, name string) string {
	width := max(3, len(strconv.Itoa(n)))
	return fmt.Sprintf("%0*d-%s", width, i+1, slug(name))
}

// slug keeps letters, digits, dot, dash and underscore, and turns every
// other run of characters into one dash.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "task"
	}
	return out
}

// prepare makes a task's workspace: a copy of its dir, or an empty folder.
func prepare(spec *taskfile.Spec, dir string) error {
	if spec.Dir == "" {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
		return nil
	}
	src := spec.Dir
	if !filepath.IsAbs(src) {
		src = filepath.Join(spec.BaseDir, src)
	}
	if err := copyTree(src, dir); err != nil {
		return fmt.Errorf("workspace: copying %s: %w", src, err)
	}
	return nil
}

// copyTree copies the folder src to dst, which must not exist: regular
// files with their permissions, folders, and symbolic links as links (the
// workspace refuses to follow one that leads out). The state folder is
// left out.
func copyTree(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", src)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == stateDir && rel != "." {
			return filepath.SkipDir
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.Type().IsRegular():
			return copyFile(path, to)
		default:
			return nil // sockets, devices and pipes are not workspace content
		}
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
