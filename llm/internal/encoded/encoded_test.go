package encoded

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

// counter is an encoder that counts its calls.
type counter struct{ n int }

func (c *counter) enc(tag string) func() ([]byte, error) {
	return func() ([]byte, error) { c.n++; return []byte(tag), nil }
}

func msg(text string) llm.Message {
	return llm.Message{Role: llm.User, Content: []llm.Block{
		llm.ToolResult("toolu_1", text, false),
		llm.ToolUse("toolu_2", "read_file", json.RawMessage(`{"path":"a"}`)),
	}}
}

func TestAMessageIsEncodedOncePerForm(t *testing.T) {
	c := New(0)
	var enc counter
	m := msg("alpha")
	for range 3 {
		if b, _ := c.Message(&m, 0, enc.enc("plain")); string(b) != "plain" {
			t.Fatalf("got %q", b)
		}
	}
	// Equal content built anew (other memory) is the same message.
	again := msg(strings.Clone("alpha"))
	c.Message(&again, 0, enc.enc("plain"))
	if enc.n != 1 {
		t.Errorf("%d encodings of one message, want 1", enc.n)
	}
	if b, _ := c.Message(&m, 1, enc.enc("marked")); string(b) != "marked" || enc.n != 2 {
		t.Errorf("another form: %q after %d encodings", b, enc.n)
	}
}

func TestAnyDifferenceIsAnotherMessage(t *testing.T) {
	base := msg("alpha")
	variants := map[string]func(m *llm.Message){
		"text":     func(m *llm.Message) { m.Content[0].Text = "alphb" },
		"is_error": func(m *llm.Message) { m.Content[0].IsError = true },
		"input":    func(m *llm.Message) { m.Content[1].Input = json.RawMessage(`{"path":"b"}`) },
		"role":     func(m *llm.Message) { m.Role = llm.Assistant },
		"a block":  func(m *llm.Message) { m.Content = m.Content[:1] },
	}
	for name, change := range variants {
		t.Run(name, func(t *testing.T) {
			c := New(0)
			var enc counter
			c.Message(&base, 0, enc.enc("base"))
			v := msg("alpha")
			change(&v)
			if b, _ := c.Message(&v, 0, enc.enc("changed")); string(b) != "changed" {
				t.Errorf("a changed %s got the old encoding", name)
			}
		})
	}
}

func TestAStoredMessageDoesNotChangeWithTheCallersSlices(t *testing.T) {
	c := New(0)
	var enc counter
	m := msg("alpha")
	c.Message(&m, 0, enc.enc("first"))
	m.Content[1].Input[9] = 'z' // the caller reuses its buffer
	if b, _ := c.Message(&m, 0, enc.enc("second")); string(b) != "second" {
		t.Errorf("a message changed in place got the encoding of what it was: %q", b)
	}
}

func TestPartsAreKeyedByEveryString(t *testing.T) {
	c := New(0)
	var enc counter
	c.Parts([]string{"ab", "c"}, 0, enc.enc("1"))
	c.Parts([]string{"ab", "c"}, 0, enc.enc("1"))
	if b, _ := c.Parts([]string{"a", "bc"}, 0, enc.enc("2")); string(b) != "2" {
		t.Errorf("strings shifted between parts share an encoding")
	}
	if enc.n != 2 {
		t.Errorf("%d encodings, want 2", enc.n)
	}
}

func TestAFullCacheDropsWhatWasLeastRecentlyUsed(t *testing.T) {
	c := New(4 << 10)
	var enc counter
	keep := msg("kept: used on every call")
	for i := range 200 {
		c.Message(&keep, 0, enc.enc("keep"))
		m := msg(fmt.Sprintf("message %d %s", i, strings.Repeat("x", 100)))
		c.Message(&m, 0, enc.enc("other"))
	}
	if enc.n != 201 {
		t.Errorf("%d encodings: the message in use was dropped", enc.n)
	}
	if c.bytes > c.max {
		t.Errorf("%d bytes kept, over the %d allowed", c.bytes, c.max)
	}
}

func TestConcurrentCallsShareOneCache(t *testing.T) {
	c := New(64 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				m := msg(fmt.Sprintf("g%d m%d", g%2, i%50))
				want := m.Content[0].Text
				b, err := c.Message(&m, i%2, func() ([]byte, error) { return []byte(want), nil })
				if err != nil || string(b) != want {
					t.Errorf("got %q, want %q", b, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
