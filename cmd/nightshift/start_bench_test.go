package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/statedir"
)

// buildNightshift builds the nightshift binary into dir as README.md
// installs it (CGO_ENABLED=0 go build -tags nopostgres, no test code in
// it; the full build, or one with cgo, Go's default where gcc is, can be
// measured through $NIGHTSHIFT_BENCH_BINARY), or takes the binary
// $NIGHTSHIFT_BENCH_BINARY names, to measure another build (an older
// commit's, a stripped one) the same way. Either is copied before it
// runs: the linker writes its output through a memory map, which leaves
// the file in the page cache in large folios that the kernel maps whole
// on a page fault, so that a binary just linked showed 13 MiB more
// peak RSS than the same bytes copied, or read back from disk.
func buildNightshift(b *testing.B, dir string) string {
	b.Helper()
	built := os.Getenv("NIGHTSHIFT_BENCH_BINARY")
	if built == "" {
		built = filepath.Join(dir, "nightshift-linked")
		cmd := exec.Command("go", "build", "-tags", readmeTags, "-o", built, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as README.md installs it
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	exe := filepath.Join(dir, "nightshift")
	if err := copyFile(exe, built); err != nil {
		b.Fatal(err)
	}
	return exe
}

// buildRusage builds testdata/rusage, the small program that starts each
// run and reads its rusage (see there why the benchmark does not read it
// itself).
func buildRusage(b *testing.B, dir string) string {
	b.Helper()
	exe := filepath.Join(dir, "rusage")
	if out, err := exec.Command("go", "build", "-o", exe, "./testdata/rusage").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// usage is what testdata/rusage says of the program it ran.
type usage struct {
	maxRSS int64 // KiB
	cpu    time.Duration
}

// usageOf reads rusage's line, the last of stderr.
func usageOf(b *testing.B, stderr string) usage {
	b.Helper()
	i := strings.LastIndex(stderr, "rusage: ")
	var u usage
	var ut, st int64
	if i < 0 {
		b.Fatalf("no rusage line in:\n%s", stderr)
	}
	if _, err := fmt.Sscanf(stderr[i:], "rusage: maxrss=%d utime=%d stime=%d", &u.maxRSS, &ut, &st); err != nil {
		b.Fatalf("rusage line %q: %v", stderr[i:], err)
	}
	u.cpu = time.Duration(ut + st)
	return u
}

// endTurnAtOnce is a model that answers every call with end_turn and no
// tool call: a run of one step, which is all start-up.
const endTurnAtOnce = "loop: true\nturns:\n  - text: \"Nothing to do.\"\n"

// BenchmarkStart is issue 23's measure of the machine a run costs: a
// 0-step `nightshift run --no-judge` (one model call, answered end_turn
// at once by a local `nightshift sim serve`) in a fresh temporary
// workspace, the real binary as README.md installs it, started as a user
// starts it. It reports the wall time of one run (ns/op), its CPU time
// (cpu-ms/op) and the peak resident memory of the process (from its
// rusage, read by testdata/rusage):
//
//   - peak-RSS-MiB: the mean over the runs, max-RSS-MiB the largest
//     (goal for both: ≤ 25 MiB);
//   - ns/op: goal ≤ 15 ms with the default sandbox (auto), the probe of
//     bubblewrap kept from the first run, as it is on a user's machine
//     from the second run on.
//
// The version case is `nightshift --version` measured the same way: the
// part of a run's figures that is the binary's start, before any work.
//
// Run it with: go test ./cmd/nightshift -run '^$' -bench Start -benchtime 50x
func BenchmarkStart(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads the child's peak RSS from a Linux rusage")
	}
	base := b.TempDir()
	exe := buildNightshift(b, base)
	rusage := buildRusage(b, base)
	scenario := filepath.Join(base, "end.yaml")
	if err := os.WriteFile(scenario, []byte(endTurnAtOnce), 0o644); err != nil {
		b.Fatal(err)
	}
	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + b.TempDir(),
		statedir.Env + "=" + filepath.Join(base, "state")}
	url := simServe(b, exe, env, scenario)
	env = append(env, "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=sk-ant-made-up-for-the-benchmark")
	// What the binary costs before any command's work: its package
	// initialisation, the runtime's, the pages of code and data that
	// touches. The runs below pay this and then their own.
	b.Run("version", func(b *testing.B) {
		measure(b, func() usage {
			c := exec.Command(rusage, exe, "--version")
			c.Env = env
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Run(); err != nil {
				b.Fatalf("nightshift --version: %v\n%s", err, stderr.String())
			}
			return usageOf(b, stderr.String())
		})
	})
	for _, sandbox := range []string{"auto", "none"} {
		b.Run("sandbox="+sandbox, func(b *testing.B) {
			run := func() usage {
				ws, err := os.MkdirTemp(base, "ws-")
				if err != nil {
					b.Fatal(err)
				}
				c := exec.Command(rusage, exe, "run", "--no-judge", "--sandbox", sandbox, "--dir", ws, "say that there is nothing to do")
				c.Env = env
				var stderr bytes.Buffer
				c.Stderr = &stderr
				if err := c.Run(); err != nil {
					b.Fatalf("nightshift run: %v\n%s", err, stderr.String())
				}
				return usageOf(b, stderr.String())
			}
			run() // the first run probes bubblewrap and keeps what it found
			measure(b, run)
		})
	}
}

// measure runs one start per iteration and reports the mean and largest
// peak RSS and the mean CPU time of what it started.
func measure(b *testing.B, start func() usage) {
	var sum, most int64
	var cpu time.Duration
	n := 0
	for b.Loop() {
		u := start()
		sum += u.maxRSS
		most = max(most, u.maxRSS)
		cpu += u.cpu
		n++
	}
	b.ReportMetric(float64(sum)/float64(n)/1024, "peak-RSS-MiB")
	b.ReportMetric(float64(most)/1024, "max-RSS-MiB")
	// CPU time (user and system) says what ns/op says on a quiet
	// machine, where other work on the same cores inflates the wall time.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "cpu-ms/op")
}

// simServe starts `nightshift sim serve --scenario FILE` and returns its
// base URL, the first line it prints.
func simServe(b *testing.B, exe string, env []string, scenario string) string {
	b.Helper()
	c := exec.Command(exe, "sim", "serve", "--scenario", scenario)
	c.Env = env
	out, err := c.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c.Process.Signal(os.Interrupt) //nolint:errcheck // it may be gone
		c.Wait()                       //nolint:errcheck // reaped only
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("sim serve: %v", err)
	}
	return strings.TrimSpace(line)
}
