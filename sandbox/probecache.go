package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The probe's answer is kept between processes, in a file of
// nightshift's state directory (Config.ProbeCache), because running
// bubblewrap twice costs every start of nightshift tens of milliseconds
// for an answer that changes only when bubblewrap, the kernel or the
// machine's rules for user namespaces do.
//
// Only success is kept: a record says "bubblewrap, and the seccomp
// filter, worked here", never "they did not". A wrong record can then
// only make nightshift confine commands more than it could, and a
// command under a sandbox that does not work fails loudly (and makes the
// next start probe again: forgetProbe), where a cached failure would
// quietly run every command of every later run unconfined. The record is
// kept where no command can write it: in the state directory, outside
// every workspace, hidden from sandboxed commands.

// probeFormat changes whenever what the probe checks changes, so that a
// record written by another version of nightshift is not taken.
const probeFormat = 1

// probeKey is everything the probe's answer depends on. A record counts
// only when its key is equal, field for field, to the one of now.
type probeKey struct {
	Format int `json:"format"`
	// Bwrap is bubblewrap's path as found on PATH, and BwrapFile the
	// identity of the file it leads to (device, inode, size, mode,
	// mtime, ctime): an upgrade or a reinstall replaces the file, and
	// so changes them, whatever version it brings.
	Bwrap     string `json:"bwrap"`
	BwrapFile string `json:"bwrap_file"`
	// Kernel is the kernel's release and version (uname -r, uname -v),
	// Boot the boot's id: what the kernel allows is probed again after
	// each boot and after each kernel change.
	Kernel string `json:"kernel"`
	Boot   string `json:"boot"`
	// Userns holds the sysctls that allow or forbid user namespaces
	// (user.max_user_namespaces, kernel.unprivileged_userns_clone,
	// kernel.apparmor_restrict_unprivileged_userns), read now, since
	// an administrator may change them without a reboot.
	Userns string `json:"userns"`
	// Namespaces names the user and mount namespaces nightshift runs in
	// (a container, a systemd unit with its own mounts) and UID the user:
	// bubblewrap may work for root and not for others, on the host and
	// not in a container.
	Namespaces string `json:"namespaces"`
	UID        int    `json:"uid"`
	// Args is a hash of the probe's bubblewrap arguments and Seccomp one
	// of the seccomp filter: a nightshift that builds its sandbox
	// differently probes again.
	Args    string `json:"args"`
	Seccomp string `json:"seccomp"`
}

// probeRecord is the content of the cache file.
type probeRecord struct {
	Key probeKey `json:"key"`
	// Version is what `bwrap --version` said when the probe ran, and At
	// when that was: for a person reading the file.
	Version string    `json:"bwrap_version,omitempty"`
	At      time.Time `json:"probed_at"`
}

// probeCacheName is the cache file's name in the state directory's
// cache folder.
const probeCacheName = "sandbox-probe.json"

// ProbeCacheFile returns where Config.ProbeCache should point for the
// state directory base (statedir.Base): base/cache/sandbox-probe.json.
func ProbeCacheFile(base string) string {
	return filepath.Join(base, "cache", probeCacheName)
}

// keyOf returns the key of the probe of the bubblewrap at path with the
// seccomp filter: an error when a part of it cannot be known, in which
// case nothing is cached.
func keyOf(path string, filter []byte) (probeKey, error) {
	k := probeKey{Format: probeFormat, Bwrap: path, UID: os.Geteuid()}
	fi, err := os.Stat(path)
	if err != nil {
		return k, err
	}
	k.BwrapFile, err = fileIdentity(fi)
	if err != nil {
		return k, err
	}
	if k.Kernel, err = kernelID(); err != nil {
		return k, err
	}
	k.Boot = readTrim("/proc/sys/kernel/random/boot_id")
	if k.Boot == "" {
		return k, errors.New("no boot id")
	}
	var us []string
	for _, f := range []string{"/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"} {
		us = append(us, filepath.Base(f)+"="+readTrim(f))
	}
	k.Userns = strings.Join(us, " ")
	var ns []string
	for _, n := range []string{"user", "mnt"} {
		l, err := os.Readlink("/proc/self/ns/" + n)
		if err != nil {
			return k, err
		}
		ns = append(ns, l)
	}
	k.Namespaces = strings.Join(ns, " ")
	s := &Sandbox{cfg: Config{Shell: DefaultShell}, dir: "/nightshift-probe", mode: Bwrap, seccomp: filter}
	k.Args = hash([]byte(strings.Join(s.bwrapArgs(nil, launch{}), "\x00")))
	k.Seccomp = hash(filter)
	return k, nil
}

func hash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// cachedSuccess reports whether the cache file holds a record of a
// successful probe with the key k.
func cachedSuccess(file string, k probeKey) bool {
	if file == "" {
		return false
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	var r probeRecord
	if json.Unmarshal(b, &r) != nil {
		return false
	}
	return r.Key == k
}

// cacheSuccess records that the probe with the key k succeeded. A
// failure to write costs only the next start a probe.
func cacheSuccess(file string, k probeKey) {
	if file == "" {
		return
	}
	r := probeRecord{Key: k, Version: bwrapVersion(k.Bwrap), At: time.Now().UTC()}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	// Written whole or not at all: another nightshift may read it now.
	f, err := os.CreateTemp(dir, probeCacheName+".*")
	if err != nil {
		return
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil || os.Rename(f.Name(), file) != nil {
		os.Remove(f.Name())
	}
}

// forgetProbe drops what is known about bubblewrap: in this process,
// every program's probe (a probe is kept under the path the program was
// found at outside the workspace, which need not be what the
// configuration names), and the record in file. The next sandbox probes
// again.
func forgetProbe(file string) {
	probeMu.Lock()
	clear(probeResult)
	probeMu.Unlock()
	if file != "" {
		if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}

// bwrapVersion returns what `bwrap --version` says, for the record.
func bwrapVersion(path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(out))
}

// brokeSandbox reports whether a command's exit and output say that
// bubblewrap could not build the sandbox (it exits 1 with "bwrap: ..."
// before it starts the command), as when user namespaces were turned
// off since the probe. A command can print the same: that costs only a
// probe.
func brokeSandbox(code int, output string) bool {
	return code == 1 && strings.HasPrefix(output, "bwrap: ")
}
