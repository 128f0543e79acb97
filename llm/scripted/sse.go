package scripted

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// sseWriter writes server-sent events and flushes each one, so a client
// sees them as they are sent (and sees the first ones before a drop).
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// event writes one event; an empty name writes a data line only (the
// OpenAI form). Write errors mean the client left: the rest is wasted but
// harmless, so they are ignored.
func (s *sseWriter) event(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic("scripted: unencodable event: " + err.Error()) // our own types only
	}
	s.raw(name, b)
}

func (s *sseWriter) raw(name string, data []byte) {
	buf := make([]byte, 0, len(data)+len(name)+16)
	if name != "" {
		buf = append(buf, "event: "...)
		buf = append(buf, name...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "data: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	s.w.Write(buf)
	s.rc.Flush()
}

// pieceSize is how many bytes of text or tool input one delta carries:
// small enough that every reply streams in several deltas, as real ones do.
const pieceSize = 16

// pieces splits s into deltas of about pieceSize bytes, never inside a
// UTF-8 sequence. An empty s gives no pieces.
func pieces(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(pieceSize, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
