package retry_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/internal/testenv"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/retry"
)

const (
	endpoint = "openai https://llm.example.com/v1"
	key      = "sk-proj-very-secret-key-0123456789"
)

// holdEnv, when set to a folder, makes this test binary a process that
// takes a turn of the limiter shared there, says so on stdout, and keeps
// the call in flight until it is killed.
const holdEnv = "RETRY_TEST_HOLD_A_CALL_IN"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		l, err := retry.OpenLimiter(retry.LimiterConfig{Dir: dir}, endpoint, key)
		if err == nil {
			err = l.Wait(context.Background(), 0)
		}
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("in flight")
		io.Copy(io.Discard, os.Stdin) //nolint:errcheck // until killed
		os.Exit(0)
	}
	testenv.Scrub()
	os.Exit(m.Run())
}

// shared opens the limiter of endpoint and key in dir on clk.
func shared(t *testing.T, dir string, clk clock.Clock) *retry.Limiter {
	t.Helper()
	l, err := retry.OpenLimiter(retry.LimiterConfig{Dir: dir, Clock: clk}, endpoint, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Error(err)
		}
	})
	return l
}

// fileOf reads the one limiter file in dir as JSON.
func fileOf(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, retry.LimiterFileName(endpoint, key)))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("the file is not JSON: %v\n%s", err, b)
	}
	return m
}

func TestLimitersShareAFile(t *testing.T) {
	s := time.Second
	ctx := context.Background()
	// 60 a minute, 59 left: one request a second (3% slower).
	h := header("x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "59", "x-ratelimit-reset-requests", "60s")
	every := slower(60*s, 60)

	t.Run("what one process learns paces the other, on one schedule", func(t *testing.T) {
		dir, c := t.TempDir(), &frozenClock{now: epoch}
		a, b := shared(t, dir, c), shared(t, dir, c)
		a.Wait(ctx, 0)
		a.Observe(h, nil)
		want := []time.Duration{every, 2 * every, 3 * every}
		if got := callsOf(t, b, c, 3, 0); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the second limiter's waits = %v, want %v: the first's pace, after its call", got, want)
		}
		if got := waitsOf(t, a, c, 1, 0)[0]; got != 4*every {
			t.Errorf("the first limiter's next turn is in %s, want %s: after the second's three", got, 4*every)
		}
	})
	t.Run("a rate set by hand holds in its process whatever the file has learned", func(t *testing.T) {
		dir, c := t.TempDir(), &frozenClock{now: epoch}
		a := shared(t, dir, c)
		slow, err := retry.OpenLimiter(retry.LimiterConfig{Dir: dir, Clock: c, RPM: 6}, endpoint, key)
		if err != nil {
			t.Fatal(err)
		}
		defer slow.Close()
		a.Wait(ctx, 0)
		a.Observe(h, nil) // the file now paces a call a second
		if got, want := slow.State().Interval, 10*s; got != want {
			t.Errorf("the hand-set limiter's interval = %s, want its --rpm 6's %s", got, want)
		}
		if got, want := a.State().Interval, every; got != want {
			t.Errorf("the other limiter's interval = %s, want the headers' %s: a hand-set rate is not written to the file", got, want)
		}
	})
	t.Run("a 429 that one process meets holds the other back", func(t *testing.T) {
		dir, c := t.TempDir(), &frozenClock{now: epoch}
		a, b := shared(t, dir, c), shared(t, dir, c)
		a.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: 5 * s})
		if got := b.State().BlockedUntil; !got.Equal(epoch.Add(5 * s)) {
			t.Errorf("the other limiter is blocked until %s, want %s", got, epoch.Add(5*s))
		}
		if got := waitsOf(t, b, c, 1, 0)[0]; got != 5*s {
			t.Errorf("the other limiter's call waited %s, want the 5s Retry-After", got)
		}
	})
	t.Run("calls in flight count across the processes while the limit is unknown", func(t *testing.T) {
		dir, c := t.TempDir(), &frozenClock{now: epoch}
		a, b := shared(t, dir, c), shared(t, dir, c)
		a.Wait(ctx, 0)
		if got := b.State().InFlight; got != 1 {
			t.Errorf("in flight seen by the other = %d, want 1", got)
		}
		a.Observe(nil, nil)
		if got := b.State().InFlight; got != 0 {
			t.Errorf("in flight after the call = %d, want 0", got)
		}
	})
	t.Run("the file holds neither the key nor the endpoint, and is named by their hash", func(t *testing.T) {
		dir, c := t.TempDir(), &frozenClock{now: epoch}
		a := shared(t, dir, c)
		a.Wait(ctx, 0)
		a.Observe(h, nil)
		a.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: s, Message: "slow down " + key})
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].Name() != retry.LimiterFileName(endpoint, key) {
			t.Fatalf("files = %v, want one named %s", ents, retry.LimiterFileName(endpoint, key))
		}
		b, err := os.ReadFile(filepath.Join(dir, ents[0].Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{key, "very-secret", "llm.example.com", endpoint} {
			if strings.Contains(string(b), secret) || strings.Contains(ents[0].Name(), secret) {
				t.Errorf("the file or its name holds %q:\n%s", secret, b)
			}
		}
		if fi, _ := ents[0].Info(); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
		}
	})
	t.Run("another key or endpoint has its own file", func(t *testing.T) {
		for _, other := range [][2]string{{endpoint, key + "2"}, {"anthropic ", key}} {
			if retry.LimiterFileName(other[0], other[1]) == retry.LimiterFileName(endpoint, key) {
				t.Errorf("%q shares a file with the first", other)
			}
		}
	})
	t.Run("the file says what it knows", func(t *testing.T) {
		dir, c := t.TempDir(), &frozenClock{now: epoch}
		a := shared(t, dir, c)
		a.Wait(ctx, 0)
		a.Observe(h, nil)
		a.Wait(ctx, 0)
		m := fileOf(t, dir)
		if m["version"] != 1.0 || m["calls"] != 1.0 || m["limited"] != 0.0 {
			t.Errorf("version, calls, limited = %v, %v, %v; want 1, 1, 0", m["version"], m["calls"], m["limited"])
		}
		pace, _ := m["request_pace"].(map[string]any)
		if pace["every"] != float64(every) {
			t.Errorf("request_pace = %v, want every %d", m["request_pace"], every)
		}
		inFlight, _ := m["in_flight"].(map[string]any)
		if mine, _ := inFlight[fmt.Sprint(os.Getpid())].(map[string]any); mine["calls"] != 1.0 {
			t.Errorf("in_flight = %v, want one call of this process", m["in_flight"])
		}
	})
	t.Run("a file that cannot be read is taken as empty and rewritten", func(t *testing.T) {
		dir, c := t.TempDir(), &frozenClock{now: epoch}
		path := filepath.Join(dir, retry.LimiterFileName(endpoint, key))
		if err := os.WriteFile(path, []byte(`{"version": 1, "next_req`), 0o600); err != nil {
			t.Fatal(err)
		}
		a := shared(t, dir, c)
		if got := callsOf(t, a, c, 2, 0); fmt.Sprint(got) != "[0s 0s]" {
			t.Errorf("waits = %v, want none", got)
		}
		if m := fileOf(t, dir); m["calls"] != 2.0 {
			t.Errorf("calls = %v, want 2", m["calls"])
		}
	})
	t.Run("a state unused for an hour is forgotten", func(t *testing.T) {
		dir, c := t.TempDir(), &frozenClock{now: epoch}
		a := shared(t, dir, c)
		for range 5 {
			a.Wait(ctx, 0)
			a.Observe(nil, nil)
			c.Advance(s)
		}
		a.Observe(nil, &llm.Error{Class: llm.RateLimited, Status: 429, RetryAfter: s})
		if a.State().LearnedRPM == 0 {
			t.Fatal("no rate learned")
		}
		c.Advance(61 * time.Minute)
		if got := a.State().LearnedRPM; got != 0 {
			t.Errorf("learned %v rpm an hour later, want it forgotten", got)
		}
	})
}

// A crashed process's calls in flight stop counting: here a real process
// takes a turn while the limit is unknown, and is killed mid-call.
func TestACrashedProcessesCallsExpire(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	stdin, err := cmd.StdinPipe() // kept open: the child waits on it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "in flight\n" {
		cmd.Process.Kill()
		t.Fatalf("the child said %q (%v)", line, err)
	}
	l := shared(t, dir, clock.Real{})
	if got := l.State().InFlight; got != 1 {
		t.Errorf("in flight while the other process calls = %d, want 1", got)
	}
	cmd.Process.Kill() //nolint:errcheck // it may have gone already
	cmd.Wait()         //nolint:errcheck // killed
	if got := l.State().InFlight; got != 0 {
		t.Errorf("in flight after the other process died = %d, want 0", got)
	}
	// With the dead process's call gone, this process may call at once.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := l.Wait(ctx, 0); err != nil {
		t.Fatal(err)
	}
}

// A process that vanished without trace (another machine's pid space, a
// reused pid) stops counting when its lease runs out.
func TestCallsInFlightExpireWithTheirLease(t *testing.T) {
	dir, c := t.TempDir(), &frozenClock{now: epoch}
	// pid 1 is always alive, so only the lease can end its calls.
	state := fmt.Sprintf(`{"version":1,"updated":%d,"in_flight":{"1":{"calls":3,"until":%d}}}`,
		epoch.UnixNano(), epoch.Add(time.Minute).UnixNano())
	if err := os.WriteFile(filepath.Join(dir, retry.LimiterFileName(endpoint, key)), []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	l := shared(t, dir, c)
	if got := l.State().InFlight; got != 3 {
		t.Errorf("in flight = %d, want the other process's 3", got)
	}
	c.Advance(time.Minute)
	if got := l.State().InFlight; got != 0 {
		t.Errorf("in flight after the lease = %d, want 0", got)
	}
}

// Files of credentials unused for a day are removed when a limiter is
// opened beside them, so that a key used once (a scenario in a temporary
// folder, a rotated key) leaves nothing behind for ever.
func TestOldLimiterFilesAreSwept(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, retry.LimiterFileName("scripted", "/tmp/gone/s.yaml"))
	recent := filepath.Join(dir, retry.LimiterFileName("anthropic ", "sk-ant-used-today"))
	for _, p := range []string{old, recent} {
		if err := os.WriteFile(p, []byte(`{"version":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	day := time.Now().Add(-25 * time.Hour)
	if err := os.Chtimes(old, day, day); err != nil {
		t.Fatal(err)
	}
	shared(t, dir, clock.Real{})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the file unused for a day is still there (err %v)", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("the file used today is gone: %v", err)
	}
}

func TestLimitersShareOnlyWhatShareAllows(t *testing.T) {
	dir := t.TempDir()
	r := retry.NewLimiters(retry.LimiterConfig{Dir: dir, Share: func(endpoint string) bool { return endpoint != "scripted" }})
	defer r.Close()
	r.For("scripted", "/work/s.yaml")
	r.For(endpoint, key)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != retry.LimiterFileName(endpoint, key) {
		t.Errorf("files = %v, want only %s's", ents, endpoint)
	}
	if err := r.Err(); err != nil {
		t.Error(err)
	}
}

// Like every state file, a limiter file is never opened through a
// symlink planted in its place.
func TestALimiterFileIsNotASymlink(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "target")
	if err := os.Symlink(elsewhere, filepath.Join(dir, retry.LimiterFileName(endpoint, key))); err != nil {
		t.Fatal(err)
	}
	if _, err := retry.OpenLimiter(retry.LimiterConfig{Dir: dir}, endpoint, key); err == nil {
		t.Error("OpenLimiter followed a symlink in the file's place")
	}
	if _, err := os.Stat(elsewhere); !os.IsNotExist(err) {
		t.Errorf("the symlink's target was created (err %v)", err)
	}
}
