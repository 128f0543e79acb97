package scripted

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// shutdownGrace is how long Serve lets requests in flight finish after its
// context ends, before it closes their connections.
const shutdownGrace = 5 * time.Second

// Serve listens on addr (host:port; port 0 picks a free one), writes the
// base URL (http://host:port) as the first line of stdout, logs one line
// per request to stderr, and serves sc until ctx ends. It returns nil after
// a shutdown caused by ctx, or the listener's error.
func Serve(ctx context.Context, sc *Scenario, addr string, stdout, stderr io.Writer) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("scripted: listen: %w", err)
	}
	srv := &http.Server{
		Handler:           NewServer(sc, ServerConfig{Log: stderr}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	if _, err := fmt.Fprintf(stdout, "http://%s\n", ln.Addr()); err != nil {
		ln.Close()
		return fmt.Errorf("scripted: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("scripted: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("scripted: serve: %w", err)
	}
	return nil
}
