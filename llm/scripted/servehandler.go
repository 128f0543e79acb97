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

// ServeHandler is Serve for any handler, for example a Server behind
// RateLimit: it listens on addr (port 0 picks a free one), writes the base
// URL (http://host:port) as the first line of stdout, and serves h until
// ctx ends. It returns nil after a shutdown caused by ctx, or the
// listener's error.
func ServeHandler(ctx context.Context, h http.Handler, addr string, stdout io.Writer) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("scripted: listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
	// Requests in flight get a grace period to finish, as in Serve.
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
