package scripted_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// lockedBuffer is a bytes.Buffer safe to write from the server's
// goroutines while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestServePrintsItsBaseURLFirstAndServesUntilCancelled(t *testing.T) {
	sc, err := scripted.Parse([]byte(`turns: [{text: "hello from the sim"}]`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- scripted.Serve(ctx, sc, "127.0.0.1:0", outW, &stderr)
		outW.Close()
	}()

	first, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the first stdout line: %v", err)
	}
	url := strings.TrimSuffix(first, "\n")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*$`).MatchString(url) {
		t.Fatalf("first line = %q; want http://127.0.0.1:PORT", first)
	}

	m, _, err := callAnthropic(ctx, anthropicClient(url), anthropicParams(), true)
	if err != nil {
		t.Fatal(err)
	}
	if m.Content[0].Text != "hello from the sim" {
		t.Errorf("reply = %q", m.Content[0].Text)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel = %v; want nil", err)
	}
	if log := stderr.String(); !strings.Contains(log, "/v1/messages stream=true script=main position=0 attempt=1") {
		t.Errorf("stderr log = %q; want a line for the request", log)
	}
}

func TestServeReportsAnAddressItCannotListenOn(t *testing.T) {
	sc, _ := scripted.Parse([]byte(`turns: [{text: x}]`))
	var stdout bytes.Buffer
	err := scripted.Serve(t.Context(), sc, "127.0.0.1:notaport", &stdout, io.Discard)
	if err == nil || stdout.Len() != 0 {
		t.Errorf("err = %v, stdout = %q; want a listen error and nothing printed", err, stdout.String())
	}
}
