package scripted

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"sync/atomic"
)

// idAlphabet is the base-62 alphabet the providers' IDs are written in
// (msg_01XFDUDYJgAACzvnptvVoYEL, call_hLqe9aGvSVsfmvESbY6SgpLu).
const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// idSalt makes the IDs of this process differ from another's; idSeq makes
// every ID of this process differ from every other. The salt is drawn at
// the first ID, not at every start of nightshift.
var (
	idSalt = sync.OnceValue(func() [16]byte {
		var b [16]byte
		rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
		return b
	})
	idSeq atomic.Uint64
)

// newID returns prefix followed by n base-62 characters, unique in the
// process: the shape of the providers' own IDs, so a client that checks or
// stores them sees what the real API sends.
func newID(prefix string, n int) string {
	var in [24]byte
	salt := idSalt()
	copy(in[:16], salt[:])
	binary.BigEndian.PutUint64(in[16:], idSeq.Add(1))
	out := make([]byte, 0, len(prefix)+n)
	out = append(out, prefix...)
	for len(out) < len(prefix)+n {
		sum := sha256.Sum256(in[:])
		for _, c := range sum {
			if len(out) == len(prefix)+n {
				break
			}
			out = append(out, idAlphabet[int(c)%len(idAlphabet)])
		}
		in[0]++ // more than 32 characters: hash again
	}
	return string(out)
}
