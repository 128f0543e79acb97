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
	h := sha256.New()
	field(h, req.System)
	for _, m := range req.Messages {
		field(h, string(m.Role))
		for _, b := range m.Content {
			field(h, string(b.Type))
			field(h, b.Text)
			field(h, b.ID)
			field(h, b.Name)
			field(h, string(b.Input))
			field(h, b.ToolUseID)
			if b.IsError {
				field(h, "is_error")
			}
		}
		field(h, "end of message")
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// field writes s length-prefixed, so that no two sequences of fields hash
// alike by shifting bytes between neighbours.
func field(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}
