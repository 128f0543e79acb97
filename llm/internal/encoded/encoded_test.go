package encoded

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/nightshift-dev/nightshift/llm"
)

// counter is an encoder that counts its calls and encodes a message as
// its first block's text and the form.
type counter struct{ n int }

func (c *counter) enc(m *llm.Message, form int) ([]byte, error) {
	c.n++
	return fmt.Appendf(nil, "%s/%d", m.Content[0].Text, form), nil
}

func msg(text string) llm.Message {
	return llm.Message{Role: llm.User, Content: []llm.Block{
		llm.ToolResult("toolu_1", text, false),
		llm.ToolUse("toolu_2", "read_file", json.RawMessage(`{"path":"a"}`)),
	}}
}

func plain(int) int { return 0 }

func encodings(t *testing.T, c *Cache, msgs []llm.Message, form func(int) int, enc *counter) []string {
	t.Helper()
	b, err := c.Messages(msgs, form, enc.enc)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(b))
	for i := range b {
		out[i] = string(b[i])
	}
	return out
}

func TestAConversationEncodesEachMessageOncePerForm(t *testing.T) {
	c := New(0)
	var enc counter
	msgs := []llm.Message{msg("task")}
	for i := range 5 {
		got := encodings(t, c, msgs, plain, &enc)
		if got[len(got)-1] != msgs[len(msgs)-1].Content[0].Text+"/0" {
			t.Fatalf("call %d: %v", i, got)
		}
		msgs = append(msgs, msg(fmt.Sprintf("step %d", i)))
	}
	if enc.n != 5 {
		t.Errorf("%d encodings for 5 messages sent in 5 calls, want 5", enc.n)
	}
	// The last one in another form: one more encoding.
	last := func(i int) int {
		if i == len(msgs)-1 {
			return 1
		}
		return 0
	}
	got := encodings(t, c, msgs, last, &enc)
	if enc.n != 6 || got[len(got)-1] != "step 4/1" {
		t.Errorf("%d encodings, last %q", enc.n, got[len(got)-1])
	}
}

func TestAnyDifferenceIsEncodedAgain(t *testing.T) {
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
			msgs := []llm.Message{msg("task"), msg("alpha")}
			encodings(t, c, msgs, plain, &enc)
			change(&msgs[1])
			encodings(t, c, msgs, plain, &enc)
			if enc.n != 3 {
				t.Errorf("a changed %s was not encoded again (%d encodings)", name, enc.n)
			}
		})
	}
}

func TestAMessageChangedInPlaceIsEncodedAgain(t *testing.T) {
	c := New(0)
	var enc counter
	msgs := []llm.Message{msg("task"), msg("alpha")}
	encodings(t, c, msgs, plain, &enc)
	msgs[1].Content[1].Input[9] = 'z' // the caller reuses its buffer
	encodings(t, c, msgs, plain, &enc)
	if enc.n != 3 {
		t.Errorf("a message changed in place kept its old encoding (%d encodings)", enc.n)
	}
}

func TestAShorterConversationForgetsWhatWasPastItsEnd(t *testing.T) {
	c := New(0)
	var enc counter
	msgs := []llm.Message{msg("task"), msg("a"), msg("b")}
	encodings(t, c, msgs, plain, &enc)
	got := encodings(t, c, msgs[:2], plain, &enc)
	if len(got) != 2 || enc.n != 3 || c.Len() != 2 {
		t.Errorf("got %v after %d encodings, %d kept", got, enc.n, c.Len())
	}
}

func TestPartsAreKeyedByEveryString(t *testing.T) {
	c := New(0)
	n := 0
	enc := func(s string) func() ([]byte, error) { return func() ([]byte, error) { n++; return []byte(s), nil } }
	c.Parts([]string{"ab", "c"}, 0, enc("1"))
	c.Parts([]string{"ab", "c"}, 0, enc("1"))
	if b, _ := c.Parts([]string{"a", "bc"}, 0, enc("2")); string(b) != "2" {
		t.Errorf("strings shifted between parts share an encoding")
	}
	if b, _ := c.Parts([]string{"ab", "c"}, 1, enc("3")); string(b) != "3" {
		t.Errorf("another form shares an encoding")
	}
	if n != 3 {
		t.Errorf("%d encodings, want 3", n)
	}
}

func TestAFullCacheDropsWhatWasLeastRecentlyUsed(t *testing.T) {
	c := New(64 << 10)
	var enc counter
	keep := []llm.Message{msg("kept: used on every call")}
	for i := range 200 {
		encodings(t, c, keep, plain, &enc)
		other := []llm.Message{msg(fmt.Sprintf("conversation %d %s", i, strings.Repeat("x", 1000)))}
		encodings(t, c, other, plain, &enc)
	}
	if enc.n != 201 {
		t.Errorf("%d encodings: the conversation in use was dropped", enc.n)
	}
	if c.bytes > c.max {
		t.Errorf("%d bytes kept, over the %d allowed", c.bytes, c.max)
	}
}

func TestConcurrentConversationsShareOneCache(t *testing.T) {
	c := New(256 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msgs := []llm.Message{msg(fmt.Sprintf("task %d", g))}
			for i := range 100 {
				msgs = append(msgs, msg(fmt.Sprintf("g%d m%d", g, i)))
				b, err := c.Messages(msgs, func(j int) int { return j % 2 }, func(m *llm.Message, f int) ([]byte, error) {
					return fmt.Appendf(nil, "%s/%d", m.Content[0].Text, f), nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				for j, e := range b {
					if want := fmt.Sprintf("%s/%d", msgs[j].Content[0].Text, j%2); string(e) != want {
						t.Errorf("got %q, want %q", e, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestDeriveMakesTheOtherFormFromThePlainOne(t *testing.T) {
	c := New(0)
	refuse := false
	c.Derive = func(plain []byte, _ *llm.Message, form int) ([]byte, bool) {
		if refuse {
			return nil, false
		}
		return fmt.Appendf(nil, "%s+%d", plain, form), true
	}
	var enc counter
	marked := func(int) int { return 1 }
	msgs := []llm.Message{msg("task")}
	if got := encodings(t, c, msgs, marked, &enc); got[0] != "task/0+1" {
		t.Fatalf("marked form %q, want it derived from the plain one", got[0])
	}
	if got := encodings(t, c, msgs, plain, &enc); got[0] != "task/0" || enc.n != 1 {
		t.Errorf("plain form %q after %d encodings: the plain encoding made for Derive was not kept", got[0], enc.n)
	}
	if c.bytes != c.convs[key(msgs)].bytes || c.bytes < len("task/0")+len("task/0+1") {
		t.Errorf("%d bytes counted for both forms", c.bytes)
	}

	refuse = true
	msgs = append(msgs, msg("step"))
	if got := encodings(t, c, msgs, marked, &enc); got[1] != "step/1" || enc.n != 3 {
		t.Errorf("got %q after %d encodings: a form Derive refused is not encoded", got[1], enc.n)
	}
}

func key(msgs []llm.Message) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(msgs[0].Content)))
}

// builder builds bodies as a provider does with AppendTo and a
// reqbody.Pool: the body built last is kept with its stamp, and the next
// call gets it back when LastStamp names it.
type builder struct {
	c     *Cache
	last  []byte
	stamp uint64
	// reused counts the calls that were handed the last body.
	reused int
}

func (b *builder) build(t *testing.T, head string, msgs []llm.Message, form func(int) int, enc func(*llm.Message, int) ([]byte, error)) string {
	t.Helper()
	prev := b.c.LastStamp(msgs)
	var buf []byte
	if prev != 0 && prev == b.stamp {
		buf = b.last[:0]
		b.reused++
	} else {
		buf = make([]byte, 0, 16)
	}
	buf = append(buf, head...)
	out, stamp, err := b.c.AppendTo(buf, prev, ',', msgs, form, enc)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, "]}"...)
	b.last, b.stamp = out, stamp
	return string(out)
}

// whole is the body built from nothing.
func whole(head string, msgs []llm.Message, form func(int) int) string {
	var parts []string
	for i := range msgs {
		if e := textEnc(&msgs[i], form(i)); len(e) > 0 {
			parts = append(parts, string(e))
		}
	}
	return head + strings.Join(parts, ",") + "]}"
}

// textEnc encodes a message as its role, first text and form; a text
// that starts with "none" encodes as nothing.
func textEnc(m *llm.Message, form int) []byte {
	if strings.HasPrefix(m.Content[0].Text, "none") {
		return []byte{}
	}
	return fmt.Appendf(nil, "%s:%s/%d", m.Role, m.Content[0].Text, form)
}

func textEncoder(m *llm.Message, form int) ([]byte, error) { return textEnc(m, form), nil }

// A body AppendTo builds over the last one leaves the messages that did
// not change where they lie: a byte changed there behind its back stays.
func TestAppendToLeavesWhatDidNotChangeInPlace(t *testing.T) {
	b := &builder{c: New(0)}
	msgs := []llm.Message{msg("task"), msg("one"), msg("two")}
	head := `{"messages":[`
	b.build(t, head, msgs, plain, textEncoder)
	at := strings.Index(string(b.last), "one")
	b.last[at] = 'O' // only a body kept in place shows this
	msgs = append(msgs, msg("three"))
	got := b.build(t, head, msgs, plain, textEncoder)
	if want := strings.Replace(whole(head, msgs, plain), "one", "One", 1); got != want || b.reused != 1 {
		t.Fatalf("got %s (reused %d), want %s", got, b.reused, want)
	}
}

// AppendTo's body is always the body built whole, over any sequence of
// calls: steps appended, messages changed in place, a shorter history,
// forms moving, a head of another length, empty encodings, and another
// conversation handed the same body.
func TestAppendToBuildsWhatAppendWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := &builder{c: New(0)}
	b.c.Derive = func(plain []byte, _ *llm.Message, form int) ([]byte, bool) {
		if len(plain) == 0 {
			return nil, false // nothing to mark: the encoder says
		}
		return fmt.Appendf(nil, "%s+%d", plain, form), true
	}
	derived := func(m *llm.Message, form int) string {
		if strings.HasPrefix(m.Content[0].Text, "none") {
			return ""
		}
		if form == 0 {
			return string(textEnc(m, 0))
		}
		return fmt.Sprintf("%s+%d", textEnc(m, 0), form)
	}
	convs := [][]llm.Message{{msg("task A")}, {msg("task B")}}
	heads := []string{`{"m":"x","messages":[`, `{"m":"xy","messages":[`}
	marks := 0
	for call := range 600 {
		k := 0
		if rng.IntN(5) == 0 {
			k = 1 // the other conversation now and then
		}
		msgs := convs[k]
		switch r := rng.IntN(20); {
		case r < 12:
			text := fmt.Sprintf("step %d", call)
			if rng.IntN(6) == 0 {
				text = "none " + text
			}
			msgs = append(msgs, msg(text))
		case r < 14 && len(msgs) > 1:
			msgs[1+rng.IntN(len(msgs)-1)].Content[0].Text = fmt.Sprintf("changed %d", call)
		case r < 15 && len(msgs) > 2:
			msgs = msgs[:1+rng.IntN(len(msgs)-1)]
		case r < 17:
			marks = rng.IntN(3)
		}
		convs[k] = msgs
		n := len(msgs)
		form := func(i int) int {
			if n-1-i < marks {
				return 1
			}
			return 0
		}
		head := heads[rng.IntN(10)/9]
		got := b.build(t, head, msgs, form, textEncoder)
		var parts []string
		for i := range msgs {
			if e := derived(&msgs[i], form(i)); e != "" {
				parts = append(parts, e)
			}
		}
		if want := head + strings.Join(parts, ",") + "]}"; got != want {
			t.Fatalf("call %d: got\n%s\nwant\n%s", call, got, want)
		}
	}
	if b.reused < 300 {
		t.Errorf("%d of 600 calls were handed the last body", b.reused)
	}
}

// A prev that is not the conversation's last body builds the body whole.
func TestAppendToWithAnotherBodyBuildsItWhole(t *testing.T) {
	c := New(0)
	a := []llm.Message{msg("task A"), msg("a1")}
	other := []llm.Message{msg("task B"), msg("b1"), msg("b2")}
	head := `{"messages":[`
	_, sa, _ := c.AppendTo([]byte(head), 0, ',', a, plain, textEncoder)
	body, _, _ := c.AppendTo([]byte(head), 0, ',', other, plain, textEncoder)
	// The other conversation's body, handed over with a's stamp.
	got, _, err := c.AppendTo(append(body[:0], head...), sa+1, ',', a, plain, textEncoder)
	if err != nil {
		t.Fatal(err)
	}
	if want := whole(head, a, plain); string(got)+"]}" != want {
		t.Errorf("got %s]}, want %s", got, want)
	}
}
