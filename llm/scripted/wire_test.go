package scripted_test

import (
	"bytes"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// startServer serves the scenario yaml on a loopback httptest server.
func startServer(t *testing.T, yaml string, cfg scripted.ServerConfig) (*httptest.Server, *scripted.Server) {
	t.Helper()
	sc, err := scripted.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if cfg.Log == nil {
		cfg.Log = &log
	}
	sim := scripted.NewServer(sc, cfg)
	hs := httptest.NewServer(sim)
	t.Cleanup(func() {
		hs.Close()
		if t.Failed() && log.Len() > 0 {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return hs, sim
}

// block is one content block as a client saw it, whichever SDK and mode.
type block struct {
	Type, Text, ID, Name, Input string
}

// reply is a reply as a client saw it.
type reply struct {
	Blocks  []block
	Stop    string
	In, Out int64
}

// generatedID matches a tool-call ID the server made: toolu_ or call_ and
// 24 base-62 characters on the wire, toolu_<n> in process.
var generatedID = regexp.MustCompile(`^(toolu_|call_)([A-Za-z0-9]{24}|[0-9]+)$`)

// masked returns r with every generated tool-call ID replaced by its
// prefix and "…", so replies compare whatever IDs were drawn.
func masked(r reply) reply {
	out := r
	out.Blocks = append([]block(nil), r.Blocks...)
	for i, b := range out.Blocks {
		if m := generatedID.FindStringSubmatch(b.ID); m != nil {
			out.Blocks[i].ID = m[1] + "…"
		}
	}
	return out
}

// modes are the two ways each wire test talks to the server.
var modes = []struct {
	name   string
	stream bool
}{{"non-streaming", false}, {"streaming", true}}
