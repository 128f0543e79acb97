//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// countingBwrap writes a stand-in for bubblewrap that notes each time it
// is run in a log, then does what body says (by default, runs the real
// bubblewrap). It returns the stand-in's path and a function that counts
// the probes it saw (runs whose command is the probe's `exit 0`).
func countingBwrap(t *testing.T, body string) (string, func() int) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	if body == "" {
		real, err := exec.LookPath("bwrap")
		if err != nil {
			t.Skipf("needs bubblewrap: %v", err)
		}
		body = `exec ` + real + ` "$@"`
	}
	fake := filepath.Join(dir, "bwrap")
	script := "#!/bin/sh\nfor a; do last=$a; done\necho \"$last\" >> " + log + "\n" + body + "\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { forgetProbe("") })
	return fake, func() int {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "exit 0\n")
	}
}

// newProbed makes a sandbox of mode auto with the bubblewrap bwrap and
// the probe's cache file, as a new process would: nothing known but what
// the file holds.
func newProbed(t *testing.T, bwrap, cache string) *Sandbox {
	t.Helper()
	forgetProbe("")
	return newSandbox(t, Config{Dir: t.TempDir(), Bwrap: bwrap, ProbeCache: cache})
}

func TestAProbesSuccessIsKeptAndSparesTheNextProcessTheProbe(t *testing.T) {
	needBwrap(t)
	bwrap, probes := countingBwrap(t, "")
	cache := ProbeCacheFile(t.TempDir())
	if sb := newProbed(t, bwrap, cache); sb.Mode() != Bwrap {
		t.Fatalf("mode %s, warnings %q; want bwrap", sb.Mode(), sb.Warnings())
	}
	first := probes()
	if first == 0 {
		t.Fatal("the first sandbox did not probe")
	}
	var r probeRecord
	b, err := os.ReadFile(cache)
	if err != nil || json.Unmarshal(b, &r) != nil {
		t.Fatalf("no record of the probe in %s: %v %q", cache, err, b)
	}
	if r.Key.Bwrap != bwrap || r.Key.Kernel == "" || r.Key.Boot == "" || r.Version == "" {
		t.Errorf("record %+v: want bwrap's path, the kernel, the boot and bwrap's version", r)
	}
	if fi, err := os.Stat(cache); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("cache file: %v, mode %v; want it private", err, fi.Mode())
	}
	sb := newProbed(t, bwrap, cache)
	if sb.Mode() != Bwrap || sb.seccomp == nil {
		t.Fatalf("mode %s, seccomp %v: the record should give bwrap with the seccomp filter", sb.Mode(), sb.seccomp != nil)
	}
	if n := probes(); n != first {
		t.Errorf("the second sandbox probed again (%d probes, then %d) despite the record", first, n)
	}
	// The sandbox the record gave works as a probed one does.
	if out, e := runLine(t, sb, "echo confined"); !e.OK() || out != "confined\n" {
		t.Errorf("command under the recorded sandbox: %q %v", out, e)
	}
}

func TestARecordIsStaleOnceBwrapOrTheKernelChanges(t *testing.T) {
	needBwrap(t)
	for name, change := range map[string]func(t *testing.T, bwrap, cache string){
		"bwrap's file changed (an upgrade)": func(t *testing.T, bwrap, _ string) {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(bwrap, later, later); err != nil {
				t.Fatal(err)
			}
		},
		"another kernel": func(t *testing.T, _, cache string) {
			editRecord(t, cache, func(r *probeRecord) { r.Key.Kernel = "6.1.0-old #1 SMP" })
		},
		"another boot": func(t *testing.T, _, cache string) {
			editRecord(t, cache, func(r *probeRecord) { r.Key.Boot = "00000000-0000-0000-0000-000000000000" })
		},
		"user namespaces allowed otherwise": func(t *testing.T, _, cache string) {
			editRecord(t, cache, func(r *probeRecord) { r.Key.Userns = "max_user_namespaces=0" })
		},
		"another nightshift's probe": func(t *testing.T, _, cache string) {
			editRecord(t, cache, func(r *probeRecord) { r.Key.Format = probeFormat - 1 })
		},
		"a file that is not a record": func(t *testing.T, _, cache string) {
			if err := os.WriteFile(cache, []byte("ok"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			bwrap, probes := countingBwrap(t, "")
			cache := ProbeCacheFile(t.TempDir())
			newProbed(t, bwrap, cache)
			first := probes()
			change(t, bwrap, cache)
			if sb := newProbed(t, bwrap, cache); sb.Mode() != Bwrap {
				t.Fatalf("mode %s after the change", sb.Mode())
			}
			if probes() == first {
				t.Error("the record was taken although what it was made for changed: no new probe")
			}
		})
	}
}

// editRecord changes the record in the cache file.
func editRecord(t *testing.T, cache string, edit func(*probeRecord)) {
	t.Helper()
	var r probeRecord
	b, err := os.ReadFile(cache)
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	edit(&r)
	b, _ = json.Marshal(r)
	if err := os.WriteFile(cache, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestAFailedProbeIsNeverKept(t *testing.T) {
	for name, body := range map[string]string{
		"bwrap cannot make namespaces": "echo 'bwrap: No permissions to creating new namespace' >&2; exit 1",
		// The seccomp filter comes with --seccomp: this one fails only then.
		"bwrap works but not the seccomp filter": `case "$*" in *--seccomp*) echo 'bwrap: prctl(PR_SET_SECCOMP): Invalid argument' >&2; exit 1;; esac; exit 0`,
	} {
		t.Run(name, func(t *testing.T) {
			bwrap, probes := countingBwrap(t, body)
			cache := ProbeCacheFile(t.TempDir())
			newProbed(t, bwrap, cache)
			if _, err := os.Stat(cache); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a failed probe left a record (%v)", err)
			}
			first := probes()
			newProbed(t, bwrap, cache)
			if probes() == first {
				t.Error("the next process did not probe again after a failed probe")
			}
		})
	}
}

func TestACommandThatFindsTheSandboxBrokenMakesTheNextStartProbeAgain(t *testing.T) {
	// This bwrap works for the probe, then no more (user namespaces
	// turned off since), as bwrap says it: "bwrap: ..." and exit 1.
	bwrap, probes := countingBwrap(t, `[ "$last" = "exit 0" ] && exit 0; echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1`)
	cache := ProbeCacheFile(t.TempDir())
	sb := newProbed(t, bwrap, cache)
	if sb.Mode() != Bwrap {
		t.Fatalf("mode %s", sb.Mode())
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("no record after a successful probe: %v", err)
	}
	if _, e := runLine(t, sb, "true"); e.Code != 1 {
		t.Fatalf("exit %v, want bwrap's 1", e)
	}
	if _, err := os.Stat(cache); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the record outlived a sandbox that broke (%v)", err)
	}
	first := probes()
	if sb := newSandbox(t, Config{Dir: t.TempDir(), Bwrap: bwrap, ProbeCache: cache}); sb.Mode() != Bwrap {
		t.Fatalf("mode %s", sb.Mode())
	}
	if probes() == first {
		t.Error("a new sandbox in the same process trusted the probe of before the failure")
	}
}

func TestACommandCannotWriteTheProbesRecord(t *testing.T) {
	needBwrap(t)
	// As a run makes it: the state directory hidden, its record inside.
	base := t.TempDir()
	cache := ProbeCacheFile(base)
	ws := t.TempDir()
	forgetProbe("")
	t.Cleanup(func() { forgetProbe("") })
	sb := newSandbox(t, Config{Dir: ws, Hide: []string{base}, ProbeCache: cache})
	if sb.Mode() != Bwrap {
		t.Fatalf("mode %s", sb.Mode())
	}
	before, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("no record: %v", err)
	}
	forged := `{"key":{"format":1},"bwrap_version":"forged"}`
	out, _ := runLine(t, sb, "mkdir -p "+filepath.Dir(cache)+"; echo '"+forged+"' > "+cache+"; cat "+cache)
	after, err := os.ReadFile(cache)
	if err != nil || string(after) != string(before) {
		t.Errorf("a command changed the record (%v): %q; its output %q", err, after, out)
	}
	if strings.Contains(out, `"boot"`) {
		t.Errorf("a command read the record: %q", out)
	}
}

// TestTheProbeRecordIsKeptInTheStateDirectory pins where a run's
// sandbox keeps it: the state directory's cache folder.
func TestTheProbeRecordIsKeptInTheStateDirectory(t *testing.T) {
	if got, want := ProbeCacheFile("/state"), "/state/cache/sandbox-probe.json"; got != want {
		t.Errorf("ProbeCacheFile = %s, want %s", got, want)
	}
}

func TestTheScanOutsideTheWorkspaceWaitsForTheFirstCommand(t *testing.T) {
	needBwrap(t)
	before := outsideScans.Load()
	sb := newSandbox(t, Config{Dir: t.TempDir()})
	if n := outsideScans.Load() - before; n != 0 {
		t.Fatalf("making the sandbox scanned %d times; a run that starts no command should not pay for the scan", n)
	}
	for range 2 {
		if _, e := runLine(t, sb, "true"); !e.OK() {
			t.Fatalf("exit %v", e)
		}
	}
	if n := outsideScans.Load() - before; n != 1 {
		t.Errorf("two commands scanned %d times, want once", n)
	}
}
