package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// Digest is the digest of a request with the given body: the recording
// side writes it, the replaying side matches on it, so both read a
// request in one way. A model call is read as the simulator reads it
// (scripted.ReadCall): its position and the hashes of its conversation and
// system prompt. A body that cannot be read so is hashed as it is.
func Digest(r *http.Request, body []byte) Request {
	route := scripted.RouteOf(r.URL.Path, r.Header)
	d := Request{
		Method:  r.Method,
		Path:    r.URL.Path,
		Wire:    route.Wire,
		Route:   route.Kind,
		Session: r.Header.Get(scripted.SessionHeader),
	}
	if len(body) == 0 {
		return d
	}
	if call, err := scripted.ReadCall(route, body); err == nil {
		fp := call.Fingerprint()
		d.Stream, d.Model, d.Position = call.Stream, call.Request.Model, call.Position()
		d.Conversation = hash(fp[:])
		d.System = hash(sha256Of(call.Request.System))
		return d
	}
	d.Conversation = hash(sha256Of(string(body)))
	return d
}

func sha256Of(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

func hash(sum []byte) string { return "sha256:" + hex.EncodeToString(sum) }
