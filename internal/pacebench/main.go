package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// limit is one rate limit of the benchmark and the calls made under it.
type limit struct {
	n     int           // requests per window
	per   time.Duration // the window
	calls int           // model calls in all, shared out over the processes
}

func (l limit) String() string { return fmt.Sprintf("%d/%s", l.n, l.per) }

// limits are issue 26's three: the ideal is 40 s, 60 s and 180 s.
var limits = []limit{
	{2, time.Second, 80},
	{10, 6 * time.Second, 100},
	{60, time.Minute, 180},
}

// cell is one measurement.
type cell struct {
	lim   limit
	procs int
	bare  bool // no rate-limit headers: bare 429s with Retry-After
	wall  time.Duration
	span  time.Duration // from the first model call to the last, as the simulator logged them
	ideal time.Duration
	// ok and lim429 count the calls answered and refused; failed the
	// processes that did not exit 0.
	ok, lim429, failed int
}

func (c cell) mode() string {
	if c.bare {
		return "bare 429s"
	}
	return "headers"
}

// ratio is the wall time over the ideal, the first window not counted:
// a pacer that spreads the calls evenly at the limit takes the ideal,
// and the first window is where a pacer that knows nothing yet learns.
// The wall time runs from the first process's start to the last one's
// exit, so it holds the processes' start-up on a busy machine too; the
// table also shows the span of the calls alone.
func (c cell) ratio() float64 {
	return float64(c.wall-c.lim.per) / float64(c.ideal-c.lim.per)
}

func (c cell) share() float64 {
	if c.ok+c.lim429 == 0 {
		return 0
	}
	return float64(c.lim429) / float64(c.ok+c.lim429)
}

func (c cell) meets() bool { return c.failed == 0 && c.ratio() <= 1.25 && c.share() <= 0.10 }

func main() {
	bin := flag.String("bin", "", "the nightshift binary (default: built from ./cmd/nightshift into a temporary folder)")
	only := flag.String("limits", "", "comma-separated limits to run, e.g. 2/1s,10/6s (default all three: 2/1s,10/6s,60/1m0s)")
	procsFlag := flag.String("procs", "1,20", "comma-separated process counts")
	modes := flag.String("modes", "headers,bare", "comma-separated modes: headers, bare")
	keep := flag.Bool("keep", false, "keep the temporary folder (state, limiter file, logs) and print its path")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *bin, *only, *procsFlag, *modes, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "pacebench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, bin, only, procsList, modes string, keep bool) error {
	tmp, err := os.MkdirTemp("", "pacebench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "pacebench: keeping", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	if bin == "" {
		bin = filepath.Join(tmp, "nightshift")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/nightshift")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building nightshift (run from the repository's root, or give -bin): %w", err)
		}
	}
	var procs []int
	for _, p := range strings.Split(procsList, ",") {
		var n int
		if _, err := fmt.Sscan(p, &n); err != nil || n < 1 {
			return fmt.Errorf("-procs %q: want counts such as 1,20", procsList)
		}
		procs = append(procs, n)
	}
	var cells []cell
	for _, l := range limits {
		if only != "" && !slicesContains(strings.Split(only, ","), l.String()) {
			continue
		}
		for _, bare := range []bool{false, true} {
			if m := map[bool]string{false: "headers", true: "bare"}[bare]; !slicesContains(strings.Split(modes, ","), m) {
				continue
			}
			for _, p := range procs {
				c := cell{lim: l, procs: p, bare: bare}
				dir := filepath.Join(tmp, fmt.Sprintf("%d-per-%s-%d-%s", l.n, l.per, p, map[bool]string{false: "headers", true: "bare"}[bare]))
				if err := measure(ctx, bin, dir, &c); err != nil {
					return fmt.Errorf("%s × %d × %s: %w", l, p, c.mode(), err)
				}
				fmt.Fprintf(os.Stderr, "pacebench: %s × %d processes × %s: %s (ideal %s) ×%.2f, %d calls, %d answered 429, %d failed\n",
					l, p, c.mode(), c.wall.Round(100*time.Millisecond), c.ideal, c.ratio(), c.ok+c.lim429, c.lim429, c.failed)
				cells = append(cells, c)
			}
		}
	}
	print(os.Stdout, cells)
	return nil
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

// print writes the table of cells.
func print(w io.Writer, cells []cell) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "limit\tprocs\tmode\twall\tideal\ttime÷ideal\tcalls\t429s\t429 %\tfailed\tgoal\tcalls' span\tspan÷ideal\t")
	for _, c := range cells {
		goal := "met"
		if !c.meets() {
			goal = "MISSED"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.1fs\t%.0fs\t%.2f\t%d\t%d\t%.1f\t%d\t%s\t%.1fs\t%.2f\t\n", c.lim, c.procs, c.mode(),
			c.wall.Seconds(), c.ideal.Seconds(), c.ratio(), c.ok+c.lim429, c.lim429, 100*c.share(), c.failed, goal,
			c.span.Seconds(), float64(c.span-c.lim.per)/float64(c.ideal-c.lim.per))
	}
	tw.Flush()
}

// scenario is a run of n model calls: a write, n-2 listings and the
// answer, which the check exists:notes.md passes.
func scenario(n int) string {
	var b strings.Builder
	b.WriteString("turns:\n  - tool_calls: [{name: write_file, input: {path: notes.md, content: \"done\\n\"}}]\n")
	for range n - 2 {
		b.WriteString("  - tool_calls: [{name: list_dir, input: {path: .}}]\n")
	}
	b.WriteString("  - text: \"Wrote notes.md.\"\n")
	return b.String()
}

// measure runs one cell in dir.
func measure(ctx context.Context, bin, dir string, c *cell) error {
	if c.lim.calls%c.procs != 0 {
		return fmt.Errorf("%d calls do not share out evenly over %d processes", c.lim.calls, c.procs)
	}
	each := c.lim.calls / c.procs
	if each < 2 {
		return fmt.Errorf("%d calls per process: want at least 2", each)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	sc := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(sc, []byte(scenario(each)), 0o600); err != nil {
		return err
	}
	args := []string{"sim", "serve", "--scenario", sc, "--limit", fmt.Sprint(c.lim.n), "--per", c.lim.per.String()}
	if c.bare {
		args = append(args, "--no-headers")
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := exec.CommandContext(sctx, bin, args...)
	srv.Cancel = func() error { return srv.Process.Signal(os.Interrupt) }
	out, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	errOut, err := srv.StderrPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	var counted sync.WaitGroup
	counted.Add(1)
	go func() {
		// One line per request: "sim: PATH stream=… -> …" for an
		// answered call, "sim: PATH: 429 rate limited …" for a refusal.
		defer counted.Done()
		sc := bufio.NewScanner(errOut)
		var first time.Time
		for sc.Scan() {
			switch line := sc.Text(); {
			case strings.Contains(line, "429 rate limited"):
				c.lim429++
			case strings.Contains(line, " stream="):
				c.ok++
			default:
				continue
			}
			if first.IsZero() {
				first = time.Now()
			}
			c.span = time.Since(first)
		}
	}()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("sim serve gave no URL: %w", err)
	}
	url = strings.TrimSpace(url)
	go io.Copy(io.Discard, out) //nolint:errcheck // drained only

	state := filepath.Join(dir, "state")
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range c.procs {
		work := filepath.Join(dir, fmt.Sprint("work", i))
		if err := os.MkdirAll(work, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("x\n"), 0o600); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, bin, "run", "--provider", "openai", "--base-url", url, "--no-judge", "--no-claims",
			"--check", "exists:notes.md", "--max-steps", fmt.Sprint(each+5), "--loop-limit", "-1",
			"--events", filepath.Join(dir, fmt.Sprintf("events%d.jsonl", i)), fmt.Sprintf("task %d: write notes.md", i))
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "NIGHTSHIFT_STATE_DIR="+state, "HOME="+work, "OPENAI_API_KEY=sk-pacebench-made-up")
		logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("stderr%d.txt", i)))
		if err != nil {
			return err
		}
		cmd.Stderr = logf
		if err := cmd.Start(); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer logf.Close()
			if err := cmd.Wait(); err != nil {
				mu.Lock()
				c.failed++
				mu.Unlock()
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					fmt.Fprintln(os.Stderr, "pacebench:", err)
				}
			}
		}()
	}
	wg.Wait()
	c.wall = time.Since(start)
	cancel()
	counted.Wait()
	srv.Wait() //nolint:errcheck // interrupted on purpose
	if err := ctx.Err(); err != nil {
		return err
	}
	c.ideal = time.Duration(c.ok) * c.lim.per / time.Duration(c.lim.n)
	return nil
}
