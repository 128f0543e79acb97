package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/internal/testenv"
	"github.com/nightshift-dev/nightshift/statedir"
)

// helperEnv makes the test binary a stand-in for nightshift: it runs one
// command in a sandbox and is killed by the test (see TestMain).
const helperEnv = "NIGHTSHIFT_SANDBOX_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(Mode(mode)))
	}
	if os.Getenv(syscallsEnv) != "" {
		os.Exit(trySyscalls())
	}
	if os.Getenv(connectEnv) != "" {
		os.Exit(tryConnect(os.Args[1:]))
	}
	testenv.Scrub()
	os.Exit(m.Run())
}

// helper runs the command line in $HELPER_LINE in the workspace
// $HELPER_DIR and waits for it; the test kills it midway.
func helper(mode Mode) int {
	sb, err := New(Config{Mode: mode, Dir: os.Getenv("HELPER_DIR")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if _, err := sb.Run(context.Background(), os.Getenv("HELPER_LINE"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// needBwrap skips a test where bubblewrap is not installed (CI installs
// it, so there the test runs), and fails it where bubblewrap is installed
// but does not work: that is worth knowing.
func needBwrap(t *testing.T) {
	t.Helper()
	err := probeBwrap("bwrap", "").err
	switch {
	case errors.Is(err, ErrNoBwrap):
		t.Skipf("needs bubblewrap (apt-get install bubblewrap): %v", err)
	case err != nil:
		t.Fatalf("bubblewrap is installed but cannot build a sandbox here: %v", err)
	}
}

func newSandbox(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	sb, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func runLine(t *testing.T, sb *Sandbox, line string) (string, Exit) {
	t.Helper()
	var out bytes.Buffer
	exit, err := sb.Run(context.Background(), line, &out)
	if err != nil {
		t.Fatalf("Run(%q): %v", line, err)
	}
	return out.String(), exit
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Auto, "auto": Auto, "BWRAP": Bwrap, " none ": None} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("docker"); err == nil || !strings.Contains(err.Error(), Modes) {
		t.Errorf("ParseMode(docker) = %v; want an error naming %s", err, Modes)
	}
}

func TestTheEnvironmentIsAnAllowList(t *testing.T) {
	environ := []string{
		"PATH=/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "TZ=UTC",
		"ANTHROPIC_API_KEY=sk-ant-0123456789", "MY_KEY_ENV=secret-in-a-named-variable",
		"NIGHTSHIFT_DB=postgres://u:pw123456@db/x", "GOFLAGS=-mod=mod", "EDITOR=vi",
	}
	got, err := buildEnv(environ, []string{"GOFLAGS"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH=/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "TZ=UTC", "GOFLAGS=-mod=mod"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
}

func TestEnvNeverNamesACredential(t *testing.T) {
	environ := []string{"NIGHTSHIFT_DB=postgres://u:pw123456@db/x", "GITHUB_TOKEN=ghp_x"}
	for _, name := range []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "PGPASSWORD", "NIGHTSHIFT_DB", "not a name"} {
		if _, err := New(Config{Mode: None, Dir: t.TempDir(), Env: []string{name}, Environ: environ}); err == nil {
			t.Errorf("--env %s was accepted", name)
		}
	}
}

func TestRunNone(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "here.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t, Config{Mode: None, Dir: dir})
	if sb.Mode() != None || len(sb.Warnings()) == 0 || !strings.Contains(sb.Warnings()[0], "no sandbox") {
		t.Errorf("mode %s, warnings %q; want none, saying there is no sandbox", sb.Mode(), sb.Warnings())
	}
	tests := []struct {
		name, line, out string
		exit            string
	}{
		{"output and status come back", "echo out; echo err >&2; exit 3", "out\nerr\n", "exit status 3"},
		{"the workspace is the working directory", "ls", "here.txt\n", "exit status 0"},
		{"a command can signal itself", "kill -9 $$", "", "killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, exit := runLine(t, sb, tt.line)
			if !strings.Contains(out, tt.out) || !strings.Contains(exit.String(), tt.exit) {
				t.Errorf("got %q, %s; want %q, %s", out, exit, tt.out, tt.exit)
			}
		})
	}
}

// gone waits until no process has arg on its command line, and fails the
// test if one still does at the deadline. Killing is asynchronous: the
// kernel may take a moment to tear a namespace down.
func gone(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		found := ""
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && bytes.Contains(b, []byte(arg)) {
				found = e.Name()
			}
		}
		if found == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %s (%s) outlived its command", found, arg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNothingOutlivesTheCommand(t *testing.T) {
	modes := []Mode{None, Bwrap}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			if mode == Bwrap {
				needBwrap(t)
			}
			sb := newSandbox(t, Config{Mode: mode, Dir: t.TempDir()})
			arg := fmt.Sprintf("1000.%d%d", os.Getpid(), time.Now().UnixNano()%1e6)
			// setsid leaves the process group: only the PID namespace
			// (or bwrap's) still holds it.
			out, exit := runLine(t, sb, "setsid sleep "+arg+" >/dev/null 2>&1 & sleep "+arg+"1 >/dev/null 2>&1 & echo started")
			if out != "started\n" || !exit.OK() {
				t.Fatalf("got %q, %s", out, exit)
			}
			if mode == None && sb.pidns == noPidns {
				t.Skip("this kernel gives no PID namespace: a detached process can outlive its command")
			}
			gone(t, arg)
		})
	}
}

func TestATimeoutKillsEverything(t *testing.T) {
	sb := newSandbox(t, Config{Mode: None, Dir: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var out bytes.Buffer
	_, err := sb.Run(ctx, "echo started; sleep 1000 & sleep 1000", &out)
	if !errors.Is(err, context.DeadlineExceeded) || out.String() != "started\n" {
		t.Errorf("got %q, %v; want the output up to the cut and the deadline", out.String(), err)
	}
}

// TestTheCommandDiesWithNightshift kills a stand-in for nightshift with
// SIGKILL while its command runs, and waits for the command to go. The
// command holds a FIFO open: its read end sees EOF exactly when the last
// process holding it is gone, so no sleep decides anything.
func TestTheCommandDiesWithNightshift(t *testing.T) {
	for _, mode := range []Mode{None, Bwrap} {
		t.Run(string(mode), func(t *testing.T) {
			if mode == Bwrap {
				needBwrap(t)
			}
			dir := t.TempDir()
			fifo := filepath.Join(dir, "alive")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			child := exec.Command(os.Args[0], "-test.run=^$")
			child.Env = append(os.Environ(), helperEnv+"="+string(mode), "HELPER_DIR="+dir,
				// The subshell and the sleep hold the FIFO; had the shell
				// survived the sleep, it would write the marker.
				"HELPER_LINE=exec 3>alive; echo started >&3; (sleep 1000; echo orphan >&3) & sleep 1000; touch marker")
			var stderr bytes.Buffer
			child.Stderr = &stderr
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			defer child.Wait() //nolint:errcheck // killed below
			r, err := os.OpenFile(fifo, os.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			buf := make([]byte, 64)
			n, err := r.Read(buf)
			if string(buf[:n]) != "started\n" {
				t.Fatalf("read %q, %v; helper: %s", buf[:n], err, stderr.String())
			}
			if err := child.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			r.SetReadDeadline(time.Now().Add(20 * time.Second)) //nolint:errcheck // a FIFO supports deadlines
			rest, err := readAll(r)
			if err != nil {
				t.Fatalf("the command still holds its FIFO after nightshift was killed: %v", err)
			}
			if rest != "" {
				t.Errorf("a process wrote %q after nightshift died", rest)
			}
			if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
				t.Error("the command's shell ran on after nightshift died")
			}
		})
	}
}

func readAll(r *os.File) (string, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r)
	return b.String(), err
}

func TestBwrapConfinesTheCommand(t *testing.T) {
	needBwrap(t)
	// Folders outside /tmp, which is private in the sandbox anyway: a
	// home with credentials, and nightshift's state.
	outside, err := os.MkdirTemp("/var/tmp", "nightshift-test-")
	if err != nil {
		t.Skipf("needs a folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	home := filepath.Join(outside, "home")
	state := filepath.Join(outside, "state")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".config", "gh"), state} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, ".netrc"), filepath.Join(state, "audit.jsonl"), filepath.Join(outside, "other")} {
		if err := os.WriteFile(f, []byte("private\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-be-seen")

	ws := t.TempDir()
	for _, d := range []string{".git", ".nightshift"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".nightshift", "journal"), []byte("state\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostTmp := filepath.Join(os.TempDir(), fmt.Sprintf("nightshift-host-%d", os.Getpid()))
	if err := os.WriteFile(hostTmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(hostTmp) })

	t.Setenv(statedir.Env, state)
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws, Hide: []string{filepath.Join(ws, ".nightshift")}})
	if sb.Mode() != Bwrap || len(sb.Warnings()) != 0 {
		t.Fatalf("mode %s, warnings %q", sb.Mode(), sb.Warnings())
	}
	tests := []struct {
		name, line string
		want       string
	}{
		{"the workspace is writable", "echo hi > new.txt && cat new.txt", "hi\n"},
		{"the rest of the file system is not", "touch " + filepath.Join(outside, "x") + " /etc/nightshift-x 2>&1 | grep -c 'Read-only file system'", "2\n"},
		{".git is read-only", "{ echo '[core] fsmonitor = touch PWNED' >> .git/config; } 2>/dev/null || echo refused; cat .git/config", "refused\n[core]\n"},
		{"the state folder in the workspace is empty and read-only", "ls -A .nightshift; touch .nightshift/x 2>/dev/null || echo refused", "refused\n"},
		{"nightshift's state directory is empty", "ls -A " + state + "; echo end", "end\n"},
		{"~/.ssh and ~/.config/gh are empty", "find ~/.ssh ~/.config/gh -mindepth 1 | wc -l", "0\n"},
		{"~/.netrc is empty", "wc -c < ~/.netrc", "0\n"},
		{"other folders stay readable", "cat " + filepath.Join(outside, "other"), "private\n"},
		{"/tmp is private", "ls " + hostTmp + " 2>/dev/null || echo missing; touch /tmp/x && echo tmp-ok", "missing\ntmp-ok\n"},
		{"no key in the environment", "env | grep -c sk-ant || true", "0\n"},
		{"no key in /proc/$PPID/environ or /proc/1/environ", "cat /proc/$PPID/environ /proc/1/environ | tr '\\0' '\\n' | grep -c ANTHROPIC_API_KEY || true", "0\n"},
		{"nightshift's process is not there", fmt.Sprintf("test -e /proc/%d/environ && echo seen || echo unseen", os.Getpid()), "unseen\n"},
		{"no capabilities", "grep CapEff /proc/self/status", "CapEff:\t0000000000000000\n"},
		{"no controlling terminal", "(: </dev/tty) 2>/dev/null && echo tty || echo no-tty", "no-tty\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := runLine(t, sb, tt.line)
			if out != tt.want {
				t.Errorf("%s:\n got %q\nwant %q", tt.line, out, tt.want)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(ws, ".nightshift", "journal")); err != nil || string(b) != "state\n" {
		t.Errorf("the workspace's state folder changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".nightshift", "x")); err == nil {
		t.Error("a file written in the hidden state folder reached the real one")
	}
}

func TestBwrapHasNoNetworkUnlessAsked(t *testing.T) {
	needBwrap(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash for /dev/tcp")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host\n")) //nolint:errcheck // the test reads it or not
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	line := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && head -n1 <&3 || echo unreachable", port)
	for _, tt := range []struct {
		net  bool
		want string
	}{{false, "unreachable\n"}, {true, "hello from the host\n"}} {
		sb := newSandbox(t, Config{Mode: Bwrap, Dir: t.TempDir(), Net: tt.net, Shell: bash})
		out, _ := runLine(t, sb, line)
		if !strings.HasSuffix(out, tt.want) {
			t.Errorf("net=%v: got %q, want %q", tt.net, out, tt.want)
		}
	}
}

func TestAutoFallsBackToNoneWithAWarning(t *testing.T) {
	sb := newSandbox(t, Config{Dir: t.TempDir(), Bwrap: "nightshift-no-such-bwrap"})
	if sb.Mode() != None {
		t.Fatalf("mode %s, want none", sb.Mode())
	}
	w := strings.Join(sb.Warnings(), "\n")
	if !strings.Contains(w, ErrNoBwrap.Error()) {
		t.Errorf("warning %q does not say bubblewrap is not installed", w)
	}
	for _, want := range []string{"no sandbox", "apt-get install bubblewrap"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q does not say %q", w, want)
		}
	}
	if _, err := New(Config{Mode: Bwrap, Dir: t.TempDir(), Bwrap: "nightshift-no-such-bwrap"}); !errors.Is(err, ErrNoBwrap) ||
		!strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Errorf("--sandbox bwrap without bwrap: %v; want an error saying how to install it", err)
	}
}

func TestAutoDetectsABwrapThatDoesNotWork(t *testing.T) {
	// A bwrap that is installed but cannot make namespaces here fails
	// as this stand-in does.
	fake := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t, Config{Dir: t.TempDir(), Bwrap: fake})
	if sb.Mode() != None || !strings.Contains(strings.Join(sb.Warnings(), "\n"), "No permissions to creating new namespace") {
		t.Errorf("mode %s, warnings %q; want none, with bwrap's own reason", sb.Mode(), sb.Warnings())
	}
}

func TestWhatAPersonMustFixIsAConfigError(t *testing.T) {
	for name, cfg := range map[string]Config{
		"an unknown mode":         {Mode: "docker", Dir: t.TempDir()},
		"bwrap without bwrap":     {Mode: Bwrap, Dir: t.TempDir(), Bwrap: "nightshift-no-such-bwrap"},
		"--env with a credential": {Mode: None, Dir: t.TempDir(), Env: []string{"GITHUB_TOKEN"}},
	} {
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

func TestSetGivesEveryCommandAVariable(t *testing.T) {
	sb := newSandbox(t, Config{Mode: None, Dir: t.TempDir(), Set: []string{"NIGHTSHIFT_JOURNAL=/work/x"}, Environ: []string{"PATH=/usr/bin:/bin"}})
	if out, _ := runLine(t, sb, "echo $NIGHTSHIFT_JOURNAL"); out != "/work/x\n" {
		t.Errorf("got %q", out)
	}
	if _, err := New(Config{Mode: None, Dir: t.TempDir(), Set: []string{"GITHUB_TOKEN=x"}}); !errors.Is(err, ErrConfig) {
		t.Errorf("a credential in Set: %v", err)
	}
}

// Regression: only the workspace's top-level .git was read-only, once,
// when the sandbox was made; a submodule's gitfile, a nested repository,
// a .GIT spelt otherwise, and a repository an earlier command made were
// not, and git runs what is written there as the user.
func TestBwrapKeepsEveryGitReadOnly(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	files := map[string]string{
		".git/config":     "[core]\n",
		"sub/.git/config": "[core]\n",
		"mod/.git":        "gitdir: ../.git/modules/mod\n",
		"Up/.GIT/config":  "[core]\n",
		"a/b/c/.git/HEAD": "ref: refs/heads/main\n",
	}
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb := newSandbox(t, Config{Mode: Bwrap, Dir: ws})
	tests := []struct{ name, line, want string }{
		{"a nested repository's config", "{ echo '[core] fsmonitor = touch PWNED' >> sub/.git/config; } 2>/dev/null || echo refused", "refused\n"},
		{"a nested repository's hooks", "mkdir sub/.git/hooks 2>/dev/null || echo refused", "refused\n"},
		{"a submodule's gitfile", "{ echo 'gitdir: ../evil' > mod/.git; } 2>/dev/null || echo refused", "refused\n"},
		{"a submodule's gitfile cannot be moved away", "mv mod/.git mod/old 2>/dev/null || echo refused", "refused\n"},
		{"a .GIT in another case", "{ echo x >> Up/.GIT/config; } 2>/dev/null || echo refused", "refused\n"},
		{"a deep one", "rm a/b/c/.git/HEAD 2>/dev/null || echo refused", "refused\n"},
		{"the rest of the folder stays writable", "echo ok > sub/file && cat sub/file", "ok\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if out, _ := runLine(t, sb, tt.line); out != tt.want {
				t.Errorf("%s:\n got %q\nwant %q", tt.line, out, tt.want)
			}
		})
	}
	for name, content := range files {
		if b, err := os.ReadFile(filepath.Join(ws, name)); err != nil || string(b) != content {
			t.Errorf("%s = %q, %v; want %q", name, b, err, content)
		}
	}

	t.Run("a .git a command makes is named in its output and read-only for the next", func(t *testing.T) {
		out, _ := runLine(t, sb, "mkdir -p new/.git/hooks && echo 'touch PWNED' > new/.git/hooks/post-checkout && echo made")
		if !strings.HasPrefix(out, "made\n") || !strings.Contains(out, "nightshift: this command made new/.git, read-only from the next command on") {
			t.Errorf("output %q", out)
		}
		if out, _ := runLine(t, sb, "{ echo 'touch PWNED2' >> new/.git/hooks/post-checkout; } 2>/dev/null || echo refused"); out != "refused\n" {
			t.Errorf("the next command: %q", out)
		}
		if out, _ := runLine(t, sb, "echo quiet"); out != "quiet\n" {
			t.Errorf("a command that makes no .git: %q", out)
		}
	})
}

func TestOutsideEnvIsTheCommandsEnvironmentWithoutBwrapsChanges(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/home/u", "TMPDIR=/var/tmp/u", "GOFLAGS=-mod=mod", "ANTHROPIC_API_KEY=sk-ant-0123456789"}
	want := []string{"PATH=/bin", "HOME=/home/u", "TMPDIR=/var/tmp/u", "GOFLAGS=-mod=mod", "NIGHTSHIFT_JOURNAL=/work/x"}
	cfg := Config{Dir: t.TempDir(), Env: []string{"GOFLAGS"}, Set: []string{"NIGHTSHIFT_JOURNAL=/work/x"}, Environ: environ}
	t.Run("with none, it is the commands' environment", func(t *testing.T) {
		cfg := cfg
		cfg.Mode = None
		sb := newSandbox(t, cfg)
		if diff := cmp.Diff(want, sb.OutsideEnv()); diff != "" {
			t.Errorf("OutsideEnv (-want +got):\n%s", diff)
		}
	})
	t.Run("with bwrap, TMPDIR and the cache are the caller's", func(t *testing.T) {
		needBwrap(t)
		cfg := cfg
		cfg.Mode = Bwrap
		sb := newSandbox(t, cfg)
		if diff := cmp.Diff(want, sb.OutsideEnv()); diff != "" {
			t.Errorf("OutsideEnv (-want +got):\n%s", diff)
		}
		if !slices.Contains(sb.Env(), "TMPDIR=/tmp") {
			t.Errorf("Env = %q, want bwrap's TMPDIR", sb.Env())
		}
	})
	if got := CleanEnv(environ); !slices.Equal(got, []string{"PATH=/bin", "HOME=/home/u", "TMPDIR=/var/tmp/u"}) {
		t.Errorf("CleanEnv = %q", got)
	}
}
