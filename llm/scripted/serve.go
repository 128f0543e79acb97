package scripted

import (
	"context"
	"io"
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
	return ServeHandler(ctx, NewServer(sc, ServerConfig{Log: stderr, ForgetRequests: true}), addr, stdout)
}
