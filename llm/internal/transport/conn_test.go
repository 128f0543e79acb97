package transport

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
)

// writes is a connection that records each write.
type writes struct {
	net.Conn
	got [][]byte
}

func (w *writes) Write(p []byte) (int, error) {
	w.got = append(w.got, bytes.Clone(p))
	return len(p), nil
}

// A body held in memory is written in one call, straight from its bytes;
// any other reader through the pooled buffer; and either way no more
// than the limit the transport set (the body's declared length).
func TestReadFromWritesAnInMemoryBodyInOneCall(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 30<<10) // 300 KB: over the copy buffer
	for _, tc := range []struct {
		name   string
		r      io.Reader
		limit  int
		writes int
	}{
		{"in memory", bytes.NewReader(body), len(body), 1},
		{"a string", strings.NewReader(string(body)), len(body), 1},
		{"in memory, limited", bytes.NewReader(body), 1000, 1},
		{"a stream", io.MultiReader(bytes.NewReader(body)), len(body), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &writes{}
			lr := &io.LimitedReader{R: tc.r, N: int64(tc.limit)}
			n, err := (&conn{Conn: w}).ReadFrom(lr)
			if err != nil || n != int64(tc.limit) || lr.N != 0 {
				t.Fatalf("wrote %d bytes (error %v, %d left), want %d", n, err, lr.N, tc.limit)
			}
			if got := bytes.Join(w.got, nil); !bytes.Equal(got, body[:tc.limit]) {
				t.Fatalf("the connection got %d other bytes", len(got))
			}
			if len(w.got) != tc.writes {
				t.Errorf("%d writes, want %d", len(w.got), tc.writes)
			}
		})
	}
}
