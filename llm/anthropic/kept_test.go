package anthropic

import (
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/providertest"
)

// A body written over the body before is the body built whole
// (providertest.KeptBodiesAreWhole).
func TestKeptBodiesAreTheBodiesBuiltWhole(t *testing.T) {
	c, rec := setup(t, false, serve(wireReply{Blocks: []wireBlock{{Type: "text", Text: "done"}}, StopReason: "end_turn"}))
	providertest.KeptBodiesAreWhole(t, providertest.Kept{
		Model: c, Rec: rec,
		Reused: func(msgs []llm.Message) bool {
			st := c.enc.LastStamp(msgs)
			return st != 0 && c.bodies.Kept(st)
		},
		Whole: func(req *llm.Request) ([]byte, error) {
			fresh, err := New(Config{APIKey: testKey, BaseURL: rec.URL})
			if err != nil {
				return nil, err
			}
			call, err := fresh.request(req, false)
			if err != nil {
				return nil, err
			}
			defer call.pooled.Done()
			return append([]byte(nil), call.body...), nil
		},
	})
}
