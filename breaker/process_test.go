package breaker_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
