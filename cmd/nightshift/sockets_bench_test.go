package main

import (
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// BenchmarkBatchSockets is issue 13's measure of a long batch over HTTP:
// `nightshift batch` with 3,000 four-call tasks at --parallel 4, run as a
// child process (this test binary re-executed) against the simulator,
// sampled from /proc after every 30 finished tasks (the child says when,
// one progress line per task). It reports:
//
//   - sockets-max: the most sockets the batch process held open at once
//     (target ≤ 4 × --parallel + 10 = 26);
//   - rss-max-MB: its largest resident set;
//   - rss-KB/task: how much the resident set grew per finished task, from
//     the first sample (30 tasks in) to the largest.
//
// It fails unless every task ends done.
//
// Run it with: go test ./cmd/nightshift -run '^$' -bench BatchSockets -benchtime 1x
func BenchmarkBatchSockets(b *testing.B) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		b.Skip("needs /proc to count a process's sockets")
	}
	const (
		tasks    = 3000
		parallel = 4
		every    = 30
	)
	for _, wire := range []string{"anthropic", "openai"} {
		b.Run(wire, func(b *testing.B) {
			for b.Loop() {
				sc, err := scripted.Parse([]byte(fourCallScenario))
				if err != nil {
					b.Fatal(err)
				}
				srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{ForgetRequests: true}))
				dir := b.TempDir()
				var lines strings.Builder
				for i := range tasks {
					fmt.Fprintf(&lines, `{"name": "t%d", "task": "Write notes.md", "checks": ["exists:notes.md"], "no_judge": true}`+"\n", i)
				}
				writeFiles(b, dir, map[string]string{"tasks.jsonl": lines.String()})
				url := srv.URL
				if wire == "openai" {
					url += "/v1"
				}
				c := startChildEnv(b, dir, []string{"NIGHTSHIFT_STATE_DIR=" + filepath.Join(dir, "state")},
					"batch", "--tasks", "tasks.jsonl", "--parallel", strconv.Itoa(parallel), "--work", filepath.Join(dir, "work"),
					"--provider", wire, "--base-url", url, "--no-judge")
				// The summary table goes to stdout at the end: drained at
				// once, so that a full pipe does not stop the child.
				go io.Copy(io.Discard, c.stdout) //nolint:errcheck // discarded
				pid := c.cmd.Process.Pid
				var sockets, finished int
				var rssFirst, rssMax int64
				for c.stderr.Scan() {
					if !strings.HasPrefix(c.stderr.Text(), "[batch · ") {
						c.seen = append(c.seen, c.stderr.Text())
						continue
					}
					if finished++; finished%every != 0 {
						continue
					}
					sockets = max(sockets, socketsOf(b, pid))
					rss := rssOf(b, pid)
					if rssFirst == 0 {
						rssFirst = rss
					}
					rssMax = max(rssMax, rss)
				}
				code, stderr := c.wait(b)
				srv.Close()
				if code != 0 || finished != tasks {
					b.Fatalf("batch exited %d after %d finished tasks:\n%s", code, finished, stderr)
				}
				b.ReportMetric(float64(sockets), "sockets-max")
				b.ReportMetric(float64(rssMax)/(1<<20), "rss-max-MB")
				b.ReportMetric(float64(rssMax-rssFirst)/1024/float64(tasks-every), "rss-KB/task")
			}
		})
	}
}

// socketsOf counts the sockets process pid holds open.
func socketsOf(tb testing.TB, pid int) int {
	tb.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// rssOf is process pid's resident set in bytes.
func rssOf(tb testing.TB, pid int) int64 {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}
