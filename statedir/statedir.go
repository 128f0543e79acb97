package statedir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Env is the variable that moves the whole state directory.
const Env = "NIGHTSHIFT_STATE_DIR"

// The names of the parts of a workspace's state folder and of the base.
const (
	WorkspacesName  = "ws"
	LimitsName      = "limits"
	JournalName     = "journal"
	RunsName        = "runs"
	CheckpointsName = "checkpoints"
	MemoryName      = "memory"
	AuditName       = "audit.jsonl"
	// pathName holds the workspace's real path, so that a person (or
	// `nightshift recover`) can tell which workspace a folder belongs to.
	pathName = "workspace"
)

// ErrUnusable means the state directory cannot hold state: there is no
// home folder to put it in, or it lies inside the workspace, where a run
// could delete it. Choose another (--state-dir, $NIGHTSHIFT_STATE_DIR).
var ErrUnusable = errors.New("statedir: no usable state directory")

// unusableError is an ErrUnusable told in the user's terms: what is wrong
// with the state directory and what to do, without the package's name
// (the command prints it as it is).
type unusableError struct{ msg string }

func (e *unusableError) Error() string        { return e.msg }
func (e *unusableError) Is(target error) bool { return target == ErrUnusable }

func unusable(format string, args ...any) error {
	return &unusableError{msg: fmt.Sprintf(format, args...)}
}

// keyLen is how many hex digits of the hash name a workspace's folder:
// 64 bits, far from any collision among one user's workspaces.
const keyLen = 16

// Base returns the state directory's path: override when it is not empty
// (the --state-dir flag), else $NIGHTSHIFT_STATE_DIR, else
// $XDG_STATE_HOME/nightshift, else ~/.local/state/nightshift. The path is
// made absolute; nothing is created.
func Base(override string) (string, error) {
	return base(override, os.Getenv, os.UserHomeDir)
}

func base(override string, getenv func(string) string, home func() (string, error)) (string, error) {
	p := override
	if p == "" {
		p = getenv(Env)
	}
	if p == "" {
		if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
			// The XDG spec says a relative XDG_STATE_HOME is invalid and
			// must be ignored.
			p = filepath.Join(x, "nightshift")
		}
	}
	if p == "" {
		h, err := home()
		if err != nil || h == "" {
			why := "$HOME is empty"
			if err != nil {
				why = err.Error()
			}
			return "", unusable("no home folder to keep nightshift's state in (%s): set $%s or give --state-dir", why, Env)
		}
		p = filepath.Join(h, ".local", "state", "nightshift")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("statedir: %w", err)
	}
	return abs, nil
}

// Key names a workspace's state folder: the first 16 hex digits of the
// SHA-256 of the workspace's real path (symlinks resolved), so that two
// spellings of one folder share one journal.
func Key(workspaceDir string) (string, error) {
	real, err := realPath(workspaceDir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(real))
	return hex.EncodeToString(sum[:])[:keyLen], nil
}

// WorkspaceDir returns base/ws/<Key(workspaceDir)> without creating it.
func WorkspaceDir(base, workspaceDir string) (string, error) {
	k, err := Key(workspaceDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, WorkspacesName, k), nil
}

// Workspace returns the state folder of the workspace at workspaceDir,
// base/ws/<Key>, creating it (mode 0700, as every state folder) and the
// note of the workspace's path in it. The state folder must not lie
// inside the workspace: a run could delete it.
func Workspace(base, workspaceDir string) (string, error) {
	real, err := realPath(workspaceDir)
	if err != nil {
		return "", err
	}
	if err := checkOutside(base, real); err != nil {
		return "", err
	}
	dir, err := WorkspaceDir(base, real)
	if err != nil {
		return "", err
	}
	if err := MkdirPrivate(dir); err != nil {
		return "", err
	}
	note := filepath.Join(dir, pathName)
	if b, err := ReadFile(note); err != nil || string(b) != real+"\n" {
		if err := WriteFile(note, []byte(real+"\n")); err != nil {
			return "", fmt.Errorf("statedir: %w", err)
		}
	}
	return dir, nil
}

// CheckOutside returns an error matching ErrUnusable when the state
// directory base lies inside the workspace at workspaceDir, where a run
// could delete it; Workspace refuses such a base too, but a command
// checks it first, before it writes anything under base.
func CheckOutside(base, workspaceDir string) error {
	real, err := realPath(workspaceDir)
	if err != nil {
		return err
	}
	return checkOutside(base, real)
}

func checkOutside(base, real string) error {
	if inside(base, real) {
		return unusable("the state directory %s is inside the workspace %s, where a run could delete it: choose another with --state-dir or $%s", base, real, Env)
	}
	return nil
}

// WorkspaceOf reads which workspace a state folder belongs to; "" when
// the note is missing.
func WorkspaceOf(stateDir string) string {
	b, err := ReadFile(filepath.Join(stateDir, pathName))
	if err != nil || len(b) == 0 {
		return ""
	}
	return string(b[:len(b)-1])
}

// Limits returns base/limits, creating it.
func Limits(base string) (string, error) {
	dir := filepath.Join(base, LimitsName)
	if err := MkdirPrivate(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// MkdirPrivate makes dir and its missing parents with mode 0700 and
// refuses when dir exists as anything but a real folder (a symlink
// planted where a state folder belongs is refused, not followed).
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("statedir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("statedir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("statedir: %s is not a folder (a symlink?); refusing to keep state there", dir)
	}
	return nil
}

func realPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("statedir: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("statedir: workspace %s does not exist", abs)
	}
	if err != nil {
		return "", fmt.Errorf("statedir: %w", err)
	}
	return real, nil
}

// inside reports whether p is dir or lies under it.
func inside(p, dir string) bool {
	if rp, err := filepath.EvalSymlinks(p); err == nil {
		p = rp
	} else if rp, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(rp, filepath.Base(p))
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel) || rel == "."
}
