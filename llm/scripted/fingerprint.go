package scripted

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"

	"github.com/nightshift-dev/nightshift/llm"
)

// fingerprint identifies a conversation's content: the system prompt and
// every message. It is hashed field by field rather than through
// encoding/json because tool inputs may be broken JSON.
func fingerprint(req *llm.Request) [sha256.Size]byte {
	f := fingerprinter{h: sha256.New()}
	f.field(req.System)
	for _, m := range req.Messages {
		f.field(string(m.Role))
		for _, b := range m.Content {
			f.field(string(b.Type))
			f.field(b.Text)
			f.field(b.ID)
			f.field(b.Name)
			f.field(string(b.Input))
			f.field(b.ToolUseID)
			if b.IsError {
				f.field("is_error")
			}
		}
		f.field("end of message")
	}
	var sum [sha256.Size]byte
	f.h.Sum(sum[:0])
	return sum
}

// fingerprinter feeds fields to a hash through one reused buffer: a
// hash.Hash takes only []byte, and converting each string on its own
// allocated once per field, several hundred times per call late in a
// session.
type fingerprinter struct {
	h   hash.Hash
	buf []byte
}

// field writes s length-prefixed, so that no two sequences of fields hash
// alike by shifting bytes between neighbours.
func (f *fingerprinter) field(s string) {
	f.buf = binary.BigEndian.AppendUint64(f.buf[:0], uint64(len(s)))
	f.buf = append(f.buf, s...)
	f.h.Write(f.buf)
}
