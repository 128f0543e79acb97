package breaker_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/breaker"
)

const childEnv = "NIGHTSHIFT_BREAKER_TEST_CHILD"

// child is one process of the cross-process test: it waits on stdin for
// the go, asks the shared breaker for a call, says whether it probes, and
// holds the probe until stdin closes.
func child(dir string) int {
	b, err := breaker.Share(breaker.Config{Failures: 1, Cool: time.Millisecond, Poll: 5 * time.Millisecond}, "h", dir, endpoint, key)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	in := bufio.NewReader(os.Stdin)
	fmt.Println("ready")
	in.ReadString('\n') //nolint:errcheck // the go
	tk, _, err := b.Admit(context.Background(), 300*time.Millisecond, nil)
	switch {
	case errors.Is(err, breaker.ErrUnavailable):
		fmt.Println("waited")
	case err != nil:
		fmt.Println("error", err)
	case tk.Probe():
		fmt.Println("probe")
	default:
		fmt.Println("call")
	}
	in.ReadString('\n') //nolint:errcheck // held until the parent is done
	return 0
}

// Ten processes meet a breaker whose cool-off has ended at the same
// moment: exactly one of them probes, the others wait on its answer.
func TestExactlyOneProcessProbes(t *testing.T) {
	dir := t.TempDir()
	b, err := breaker.Share(breaker.Config{Failures: 1, Cool: time.Millisecond}, "h", dir, endpoint, key)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tk, _, _ := b.Admit(context.Background(), 0, nil)
	tk.Record(refused, nil) // open, for a millisecond
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	var procs []proc
	for range 10 {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := proc{cmd, stdin, bufio.NewReader(stdout)}
		procs = append(procs, p)
		defer func() { p.in.Close(); p.cmd.Wait() }() //nolint:errcheck // ended
		if line, _ := p.out.ReadString('\n'); line != "ready\n" {
			t.Fatalf("a child said %q", line)
		}
	}
	for _, p := range procs {
		fmt.Fprintln(p.in)
	}
	said := map[string]int{}
	for _, p := range procs {
		line, _ := p.out.ReadString('\n')
		said[strings.TrimSpace(line)]++
	}
	if said["probe"] != 1 || said["waited"] != 9 {
		t.Errorf("the processes said %v, want 1 probe and 9 waited", said)
	}
}

// A probe whose process died (killed mid-call) is taken over by the
// next caller at once: the breaker is not left half-open until the
// probe's lease runs out.
func TestAProbeWhoseProcessDiedIsTakenOver(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	state := fmt.Sprintf(`{"version":1,"state":"half-open","failures":5,"since":1,"probe":"x","probe_pid":%d,"probe_at":%d}`,
		gone.Process.Pid, time.Now().UnixNano())
	if err := os.WriteFile(filepath.Join(dir, breaker.FileName(endpoint, key)), []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := breaker.Share(breaker.Config{}, "h", dir, endpoint, key)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tk, waited, err := b.Admit(context.Background(), 0, nil)
	if err != nil || !tk.Probe() || waited != 0 {
		t.Errorf("probe %v, waited %s, %v; want this caller to probe at once", tk.Probe(), waited, err)
	}
}
