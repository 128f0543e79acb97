package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stallingProvider is an HTTP server in the place of a provider: every
// request is held until its client goes away, and arrived gets a value
// when one comes in — the child is then midway through a model call.
func stallingProvider(t *testing.T) (url string, arrived <-chan struct{}) {
	t.Helper()
	ch := make(chan struct{}, 64)
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read to the end: only then does the server notice the client
		// going away, and cancel the request's context.
		io.Copy(io.Discard, r.Body) //nolint:errcheck // the body is not looked at
		select {
		case ch <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() {
		close(stop)
		srv.Close()
	})
	return srv.URL, ch
}

// silentListener accepts TCP connections and never answers: a database
// that does not reply. accepted gets a value per connection.
func silentListener(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 64)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), ch
}

// await fails the test unless ch gets a value within a minute: a bound
// on a child that went wrong, not a wait for it to get somewhere.
func await(t *testing.T, ch <-chan struct{}, c *child, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("%s never happened:\n%s", what, strings.Join(c.seen, "\n"))
	}
}

// A madeUpKey is no one's key.
const madeUpKey = "ANTHROPIC_API_KEY=sk-ant-made-up-for-the-interrupt-tests"

// interruptCase is a command that runs long: how to start it, how to
// know it is midway, and what it must say once a signal stopped it.
type interruptCase struct {
	name string
	// start starts the child in dir and returns once it is midway.
	start func(t *testing.T, dir string) *child
	// want are lines (substrings) its output, stderr and stdout, must
	// hold; never, what it must not.
	want, never []string
	// after checks what the command left, once it exited.
	after func(t *testing.T, dir string)
	// sigterm: SIGTERM is tried too. Both signals take the same path
	// (Main's handler, then exitStatus); run and night are tried with
	// both by TestSignalPausesTheRun and TestCtrlCStopsANightAtOnce.
	sigterm bool
}

func interruptCases() []interruptCase {
	modelCmd := func(args ...string) func(t *testing.T, dir string) *child {
		return func(t *testing.T, dir string) *child {
			url, arrived := stallingProvider(t)
			args := append([]string{}, args...)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "$URL", url)
			}
			c := startChildEnv(t, dir, []string{madeUpKey}, append(args, "--provider", "anthropic", "--base-url", url)...)
			await(t, arrived, c, "a model call")
			return c
		}
	}
	tasks := "- {name: one, task: Write one.txt, no_judge: true}\n- {name: two, task: Write two.txt, no_judge: true}\n"
	return []interruptCase{
		{
			name: "run",
			start: func(t *testing.T, dir string) *child {
				writeFiles(t, dir, map[string]string{"work/notes.txt": "notes\n"})
				return modelCmd("run", "--no-judge", "--dir", "work", "Write notes.txt")(t, dir)
			},
			want: []string{"[outcome · interrupted ", "go on:  nightshift run --resume ", "undo:   nightshift recover --dir "},
		},
		{
			name:    "batch",
			sigterm: true,
			start: func(t *testing.T, dir string) *child {
				writeFiles(t, dir, map[string]string{"tasks.yaml": tasks})
				return modelCmd("batch", "--tasks", "tasks.yaml", "--work", "out", "--parallel", "1")(t, dir)
			},
			// The never-started task is not resumable by run: the
			// batch's own resume is named.
			want: []string{"nightshift batch --resume --tasks tasks.yaml --work ", "not started"},
		},
		{
			name:  "eval",
			start: modelCmd("eval"),
			want:  []string{"nightshift: interrupted by SIG"},
			never: []string{"context canceled"},
		},
		{
			name: "eval reliability",
			start: func(t *testing.T, dir string) *child {
				writeFiles(t, dir, map[string]string{"tasks.yaml": tasks})
				return modelCmd("eval", "reliability", "--tasks", "tasks.yaml", "--runs", "1", "--work", "out")(t, dir)
			},
			want: []string{"the figures are not a measurement"},
		},
		{
			name: "night",
			start: func(t *testing.T, dir string) *child {
				now := time.Now().UTC()
				writeFiles(t, dir, map[string]string{"pipeline.yaml": fmt.Sprintf(`window: {start: "%s", end: "%s"}
models: {maker: {provider: anthropic, base_url: "$URL"}}
roles:
  builder: {models: [maker], no_judge: true}
`, now.Add(-time.Hour).Format("15:04"), now.Add(time.Hour).Format("15:04"))})
				db := filepath.Join(dir, "night.db")
				if res := runCLI(t, "task", "add", "a booklet", "--db", db); res.code != 0 {
					t.Fatalf("task add: %d %s", res.code, res.stderr)
				}
				url, arrived := stallingProvider(t)
				writeFiles(t, dir, map[string]string{"pipeline.yaml": strings.ReplaceAll(readFile(t, filepath.Join(dir, "pipeline.yaml")), "$URL", url)})
				c := startChildEnv(t, dir, []string{madeUpKey}, "night", "--pipeline", "pipeline.yaml", "--db", db)
				await(t, arrived, c, "the builder's model call")
				return c
			},
			want: []string{"1 step recorded interrupted", "`nightshift night` again in the window continues the night"},
		},
		{
			name:    "sim serve",
			sigterm: true,
			start: func(t *testing.T, dir string) *child {
				writeFiles(t, dir, map[string]string{"s.yaml": "turns:\n  - {text: hi}\n"})
				c := startChild(t, dir, "sim", "serve", "--scenario", "s.yaml")
				readURL(t, c)
				return c
			},
			want: []string{"nightshift: interrupted by SIG"},
		},
		{
			name: "sim proxy, with a request in flight",
			start: func(t *testing.T, dir string) *child {
				up, arrived := stallingProvider(t)
				c := startChild(t, dir, "sim", "proxy", "--upstream", up)
				url := readURL(t, c)
				go func() {
					// The reply never comes: the request ends when the
					// proxy does.
					resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":1,"messages":[]}`))
					if err == nil {
						resp.Body.Close()
					}
				}()
				await(t, arrived, c, "the proxied request")
				return c
			},
			want: []string{"nightshift: interrupted by SIG"},
		},
		{
			name:    "report, waiting on a database that does not answer",
			sigterm: true,
			start: func(t *testing.T, dir string) *child {
				addr, accepted := silentListener(t)
				c := startChild(t, dir, "report", "--db", "postgres://nightshift@"+addr+"/night?sslmode=disable&connect_timeout=0")
				await(t, accepted, c, "the connection to the database")
				return c
			},
			want: []string{"nightshift: interrupted by SIG"},
		},
		{
			name:    "eval claims",
			sigterm: true,
			start: func(t *testing.T, dir string) *child {
				c := startChildEnv(t, dir, []string{stallAtEnv + "=claimeval: case checked"}, "eval", "claims")
				c.waitFor(t, stalledAt)
				return c
			},
			want:  []string{"nightshift: interrupted by SIG"},
			never: []string{"context canceled"},
		},
		{
			name: "recover, midway through its rollback",
			start: func(t *testing.T, dir string) *child {
				work, _, killed := killedRun(t)
				killed.wait(t)
				c := startChildEnv(t, dir, []string{stallAtEnv + "=journal: restore: removed"}, "recover", "--dir", work)
				c.waitFor(t, stalledAt)
				return c
			},
			want:  []string{"interrupted: the workspace is partly restored; finish it with: nightshift recover --dir "},
			never: []string{"nightshift: recovered "},
		},
		{
			name: "demo",
			start: func(t *testing.T, dir string) *child {
				c := startChild(t, dir, "demo")
				c.waitFor(t, "[retry ·")
				return c
			},
			want:  []string{"nightshift demo: interrupted"},
			never: []string{"== scene 2", "--resume", "recover"},
		},
	}
}

// Issue 23: Ctrl-C stopped some commands with exit 130 and others with 0
// or 1 ("context canceled"), and some said how to resume what was gone.
// Every command that runs long, stopped midway by SIGINT or SIGTERM as a
// real process, exits 130 within seconds and says accurately what it
// left.
func TestEveryLongCommandExits130OnASignal(t *testing.T) {
	for _, tc := range interruptCases() {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			if sig == syscall.SIGTERM && !tc.sigterm {
				continue
			}
			t.Run(tc.name+" stopped by "+signalName(sig)+" exits 130", func(t *testing.T) {
				dir := t.TempDir()
				c := tc.start(t, dir)
				// What the command tells the person goes to stderr, and
				// a summary's advice with it to stdout: both are read.
				stdout := make(chan string, 1)
				go func() {
					b, _ := io.ReadAll(c.stdout)
					stdout <- string(b)
				}()
				sent := time.Now()
				if err := c.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				out := <-stdout // to its end: the child has exited, or is exiting
				code, stderr := c.wait(t)
				took := time.Since(sent)
				stderr += "\n" + out
				if code != 130 {
					t.Fatalf("exit %d, want 130\n%s", code, stderr)
				}
				// A bound for a loaded machine: the point is seconds,
				// not the minutes a call or a window could take.
				if took > 10*time.Second {
					t.Errorf("it took %s to stop", took)
				}
				t.Logf("exit %d, %s after the signal", code, took.Round(time.Millisecond))
				for _, want := range tc.want {
					if !strings.Contains(stderr, want) {
						t.Errorf("the output lacks %q:\n%s", want, stderr)
					}
				}
				for _, never := range tc.never {
					if strings.Contains(stderr, never) {
						t.Errorf("the output says %q:\n%s", never, stderr)
					}
				}
				if tc.after != nil {
					tc.after(t, dir)
				}
			})
		}
	}
}

// After an interrupted recover, the same command finishes the rollback:
// the workspace is back as it was before the dead run.
func TestAnInterruptedRecoverIsFinishedByRecover(t *testing.T) {
	work, _, killed := killedRun(t)
	killed.wait(t)
	c := startChildEnv(t, t.TempDir(), []string{stallAtEnv + "=journal: restore: removed"}, "recover", "--dir", work)
	c.waitFor(t, stalledAt)
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.wait(t); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, stderr)
	}
	if res := runCLI(t, "recover", "--dir", work); res.code != 0 || !strings.Contains(res.stderr, "nightshift: recovered ") {
		t.Fatalf("recover again: exit %d\n%s", res.code, res.stderr)
	}
	checkOriginal(t, work)
}

// exitStatus is the one place a signal becomes 130: whatever the command
// returned once the signal had cancelled it, the status is 130, a line
// says so unless the command said it, and an error other than the
// cancellation is still printed.
func TestAfterASignalWhateverTheCommandReturnsTheStatusIs130(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		want, none string
	}{
		{"a server that returned nil", nil, "nightshift: interrupted by SIGINT", ""},
		{"a call's context canceled", fmt.Errorf("judge: %w", context.Canceled), "nightshift: interrupted by SIGINT", "context canceled"},
		{"a batch's own status, 8", exitWith(8), "nightshift: interrupted by SIGINT", ""},
		{"a command that said it was interrupted", exitWith(130), "", "interrupted by"},
		{"a record that could not be written", errors.New("record: disk full"), "nightshift: record: disk full\nnightshift: interrupted by SIGINT", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(&interrupted{os.Interrupt})
			var stderr strings.Builder
			if code := exitStatus(ctx, tc.err, &stderr); code != 130 {
				t.Errorf("exit %d, want 130", code)
			}
			if !strings.Contains(stderr.String(), tc.want) || (tc.none != "" && strings.Contains(stderr.String(), tc.none)) {
				t.Errorf("stderr %q: want %q, never %q", stderr.String(), tc.want, tc.none)
			}
		})
	}
	t.Run("without a signal the command's status stands", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		if code := exitStatus(ctx, exitWith(8), io.Discard); code != 8 {
			t.Errorf("exit %d, want 8", code)
		}
	})
}
