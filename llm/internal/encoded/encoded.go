// Package encoded keeps the wire encoding of what a provider has sent, so
// that each message of a conversation is encoded once, not once per call:
// an agent's call at step 200 resends 199 steps of history, and encoding
// them again with the SDKs' reflection-based encoders made the harness's
// own cost per step grow with the conversation (issue 15).
//
// Messages are kept per conversation, by position: a call's messages are
// compared with the ones the previous call of the same conversation sent
// at the same places, and each one that is the same (field by field, in
// the same form) gets its kept encoding. An agent resends its history
// with the very same strings, and a string compared with itself compares
// in constant time, so a call costs the number of its messages' blocks
// plus the encoding of what is new, not the size of the history. A
// conversation is known by where its first message's blocks are, which an
// agent keeps for the whole run; anything else (a compacted history, a
// message changed in place) is simply encoded again.
//
// Other pieces of a request (its system prompt and tools) are kept by
// content (Parts).
package encoded

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/nightshift-dev/nightshift/llm"
)

// DefaultMaxBytes bounds the encodings one Cache keeps: enough for the
// histories of dozens of long runs at once. Past it, the conversations
// and parts least recently used go.
const DefaultMaxBytes = 64 << 20

// Forms is how many forms a message may be encoded in (a provider's own
// variants: without and with a cache breakpoint).
const Forms = 2

// Cache keeps encodings. It is safe for concurrent use; a provider client
// holds one for all its calls.
type Cache struct {
	// Derive, when set (before the Cache is used), makes a message's
	// encoding in a form other than 0 from its encoding in form 0, which
	// is then made first and kept too; it reports false when it cannot,
	// and the encoder is asked. A form that differs from the plain one by
	// a few bytes (Anthropic's cache breakpoint on the last block) is
	// then a copy, not a second encoding by an SDK: each message of a
	// conversation is sent in both forms in turn, and encoding it twice
	// was a third of what a step spent encoding (issue 15).
	Derive func(plain []byte, m *llm.Message, form int) ([]byte, bool)

	seed maphash.Seed
	max  int

	mu    sync.Mutex
	convs map[uintptr]*conv
	parts map[uint64][]*part
	bytes int
	tick  uint64
}

// conv is one conversation's messages as last sent, with their
// encodings.
type conv struct {
	mu    sync.Mutex
	slots []slot
	bytes int
	used  uint64
	// stamp names the body AppendTo built last (0: none known), whose
	// head was head bytes long and whose message i ended at ends[i].
	stamp uint64
	head  int
	ends  []int
}

type slot struct {
	msg llm.Message
	enc [Forms][]byte
	// sent is the form the message had in the body AppendTo built last
	// (-1: none).
	sent int8
}

// part is the encoding of a list of strings.
type part struct {
	form  int
	parts []string
	enc   []byte
	used  uint64
}

// New returns a Cache keeping about maxBytes of encodings at most (0:
// DefaultMaxBytes).
func New(maxBytes int) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Cache{seed: maphash.MakeSeed(), max: maxBytes, convs: make(map[uintptr]*conv), parts: make(map[uint64][]*part)}
}

// Messages returns the encoding of each message of a conversation in the
// form form(i) (0 <= form < Forms): the kept one when the message is the
// one the conversation's previous call sent at that place, else one made
// by enc and kept. The bytes returned must not be modified.
func (c *Cache) Messages(msgs []llm.Message, form func(i int) int, enc func(m *llm.Message, form int) ([]byte, error)) ([][]byte, error) {
	out := make([][]byte, 0, len(msgs))
	err := c.each(msgs, form, enc, func(b []byte) { out = append(out, b) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Append appends the encodings Messages would return to dst, sep between
// each two that are not empty, without a list of them: a body is built
// in one pass.
func (c *Cache) Append(dst []byte, sep byte, msgs []llm.Message, form func(i int) int, enc func(m *llm.Message, form int) ([]byte, error)) ([]byte, error) {
	first := true
	err := c.each(msgs, form, enc, func(b []byte) {
		if len(b) == 0 {
			return
		}
		if !first {
			dst = append(dst, sep)
		}
		first = false
		dst = append(dst, b...)
	})
	return dst, err
}

// each hands yield the encoding of each message, in order (see Messages).
// The body AppendTo built last for the conversation is no longer known.
func (c *Cache) each(msgs []llm.Message, form func(i int) int, enc func(m *llm.Message, form int) ([]byte, error), yield func([]byte)) error {
	if len(msgs) == 0 {
		return nil
	}
	cv := c.conv(msgs)
	cv.mu.Lock()
	before := cv.bytes
	cv.stamp = 0
	var err error
	for i := range msgs {
		var s *slot
		f := form(i)
		if s, _, err = c.slot(cv, i, &msgs[i], f, enc); err != nil {
			break
		}
		yield(s.enc[f])
	}
	c.finish(cv, len(msgs), before, err)
	return err
}

// stamps numbers the bodies AppendTo builds, across caches.
var stamps atomic.Uint64

// LastStamp returns the stamp of the body AppendTo built last for the
// conversation msgs is, or 0.
func (c *Cache) LastStamp(msgs []llm.Message) uint64 {
	if len(msgs) == 0 {
		return 0
	}
	c.mu.Lock()
	cv := c.convs[convKey(msgs)]
	c.mu.Unlock()
	if cv == nil {
		return 0
	}
	cv.mu.Lock()
	defer cv.mu.Unlock()
	return cv.stamp
}

// AppendTo is Append for a body kept from call to call
// (reqbody.Pool.Last), and returns the new body's stamp for the next
// call's prev. When prev is LastStamp's, dst is the head of the new
// request written over the start of the body AppendTo built then: if the
// head is as long as it was, the messages that are the same as then, in
// the same forms, from the first on, are left where they lie after it,
// and only the rest is written. A long run's call then costs the
// comparison of its history and the writing of its last steps, not a
// copy of its whole history (issue 15). Any other prev builds the body
// whole, as Append does.
func (c *Cache) AppendTo(dst []byte, prev uint64, sep byte, msgs []llm.Message, form func(i int) int, enc func(m *llm.Message, form int) ([]byte, error)) ([]byte, uint64, error) {
	if len(msgs) == 0 {
		return dst, 0, nil
	}
	cv := c.conv(msgs)
	cv.mu.Lock()
	before := cv.bytes
	head := len(dst)
	old := cv.ends
	keep := prev != 0 && prev == cv.stamp && head == cv.head && len(old) > 0 && old[len(old)-1] <= cap(dst)
	ends := old
	if cap(ends) < len(msgs) {
		ends = make([]int, len(msgs), 2*len(msgs))
		copy(ends, old)
	}
	ends = ends[:len(msgs)]
	cv.stamp = 0 // until the body is whole
	first := true
	var err error
	for i := range msgs {
		f := form(i)
		if keep && i < len(old) && i < len(cv.slots) {
			// The usual message: sent last time, in this form, and
			// unchanged. Nothing to write; ends[i] is old[i].
			if s := &cv.slots[i]; int(s.sent) == f && sameMessage(&s.msg, &msgs[i]) {
				continue
			}
		}
		var s *slot
		var same bool
		if s, same, err = c.slot(cv, i, &msgs[i], f, enc); err != nil {
			break
		}
		if keep && (!same || s.sent != int8(f) || i >= len(old)) {
			// The first message not as it was: the body is written
			// from its place on.
			keep = false
			at := head
			if i > 0 {
				at = old[i-1]
			}
			dst, first = dst[:at], at == head
		}
		s.sent = int8(f)
		if keep {
			continue // ends[i] is old[i], in place
		}
		if e := s.enc[f]; len(e) > 0 {
			if !first {
				dst = append(dst, sep)
			}
			first = false
			dst = append(dst, e...)
		}
		ends[i] = len(dst)
	}
	if keep {
		dst = dst[:old[len(msgs)-1]] // every message as it was
	}
	var stamp uint64
	if err == nil {
		stamp = stamps.Add(1)
		cv.stamp, cv.head, cv.ends = stamp, head, ends
	}
	c.finish(cv, len(msgs), before, err)
	return dst, stamp, err
}

// convKey is how a conversation is known: where its first message's
// blocks are.
func convKey(msgs []llm.Message) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(msgs[0].Content)))
}

// conv returns the conversation msgs is, made if new, marked used.
func (c *Cache) conv(msgs []llm.Message) *conv {
	key := convKey(msgs)
	c.mu.Lock()
	defer c.mu.Unlock()
	cv := c.convs[key]
	if cv == nil {
		cv = &conv{}
		c.convs[key] = cv
	}
	c.tick++
	cv.used = c.tick
	return cv
}

// slot returns the slot of message i of cv, with its encoding in form f:
// the kept one when m is the message kept there (same), else a new slot
// for m, and every slot after it dropped. cv.mu is held.
func (c *Cache) slot(cv *conv, i int, m *llm.Message, f int, enc func(m *llm.Message, form int) ([]byte, error)) (s *slot, same bool, err error) {
	same = i < len(cv.slots) && sameMessage(&cv.slots[i].msg, m)
	if !same && i < len(cv.slots) {
		for _, d := range cv.slots[i:] {
			cv.bytes -= d.size()
		}
		cv.slots = cv.slots[:i]
	}
	if i == len(cv.slots) {
		cv.slots = append(cv.slots, slot{msg: cloneMessage(m), sent: -1})
		cv.bytes += cv.slots[i].size()
	}
	s = &cv.slots[i]
	if s.enc[f] == nil {
		plain := len(s.enc[0])
		b, err := c.encode(s, m, f, enc)
		if err != nil {
			return nil, false, err
		}
		if f != 0 {
			cv.bytes += len(s.enc[0]) - plain // made by encode for Derive
		}
		s.enc[f] = b
		cv.bytes += len(b)
	}
	return s, same, nil
}

// finish ends a call of cv with n messages (cv.mu held, and released):
// the slots past a conversation that got shorter go, and the cache's
// bytes are counted, and bounded.
func (c *Cache) finish(cv *conv, n, before int, err error) {
	if err == nil && len(cv.slots) > n {
		// The conversation is shorter than when last sent: what lies
		// past its end will not come back in place.
		for _, s := range cv.slots[n:] {
			cv.bytes -= s.size()
		}
		cv.slots = cv.slots[:n]
	}
	if err != nil {
		cv.stamp = 0
	}
	grown := cv.bytes - before
	cv.mu.Unlock()
	c.mu.Lock()
	c.bytes += grown
	if c.bytes > c.max {
		c.evict(cv)
	}
	c.mu.Unlock()
}

// encode makes s's message's encoding in form f, by Derive from its plain
// encoding (made and kept first) when Derive can, else by enc.
func (c *Cache) encode(s *slot, m *llm.Message, f int, enc func(m *llm.Message, form int) ([]byte, error)) ([]byte, error) {
	if f == 0 || c.Derive == nil {
		return enc(m, f)
	}
	if s.enc[0] == nil {
		b, err := enc(m, 0)
		if err != nil {
			return nil, err
		}
		s.enc[0] = b
	}
	if b, ok := c.Derive(s.enc[0], m, f); ok {
		return b, nil
	}
	return enc(m, f)
}

// Parts returns the encoding of a list of strings in the given form (a
// request's head, for example: its system prompt and tools' specs), made
// by enc on the first request and kept, by content.
func (c *Cache) Parts(parts []string, form int, enc func() ([]byte, error)) ([]byte, error) {
	var mh maphash.Hash
	mh.SetSeed(c.seed)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(form)<<32|uint64(len(parts)))
	mh.Write(n[:])
	for _, p := range parts {
		// Length-prefixed, so that no two lists hash alike by moving
		// bytes from one string to its neighbour.
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		mh.Write(n[:])
		mh.WriteString(p)
	}
	h := mh.Sum64()
	c.mu.Lock()
	for _, e := range c.parts[h] {
		if e.form == form && slices.Equal(e.parts, parts) {
			c.tick++
			e.used = c.tick
			c.mu.Unlock()
			return e.enc, nil
		}
	}
	c.mu.Unlock()
	b, err := enc()
	if err != nil {
		return nil, err
	}
	e := &part{form: form, parts: slices.Clone(parts), enc: b}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick++
	e.used = c.tick
	c.parts[h] = append(c.parts[h], e)
	c.bytes += e.size()
	if c.bytes > c.max {
		c.evict(nil)
	}
	return b, nil
}

// evict drops the least recently used conversations and parts, but
// keep, until the cache holds half its maximum. It runs once per half of
// the cache's capacity at most, so its sort is paid for by many calls.
func (c *Cache) evict(keep *conv) {
	type item struct {
		used uint64
		drop func() int
	}
	var all []item
	for k, cv := range c.convs {
		if cv == keep {
			continue
		}
		all = append(all, item{cv.used, func() int {
			delete(c.convs, k)
			cv.mu.Lock()
			defer cv.mu.Unlock()
			return cv.bytes
		}})
	}
	for h, es := range c.parts {
		for _, e := range es {
			all = append(all, item{e.used, func() int {
				rest := slices.DeleteFunc(c.parts[h], func(x *part) bool { return x == e })
				if len(rest) == 0 {
					delete(c.parts, h)
				} else {
					c.parts[h] = rest
				}
				return e.size()
			}})
		}
	}
	slices.SortFunc(all, func(a, b item) int {
		switch {
		case a.used < b.used:
			return -1
		case a.used > b.used:
			return 1
		}
		return 0
	})
	for _, it := range all {
		if c.bytes <= c.max/2 {
			break
		}
		c.bytes -= it.drop()
	}
}

// Len is the number of encodings kept, for tests.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, es := range c.parts {
		n += len(es)
	}
	for _, cv := range c.convs {
		cv.mu.Lock()
		for _, s := range cv.slots {
			for _, e := range s.enc {
				if e != nil {
					n++
				}
			}
		}
		cv.mu.Unlock()
	}
	return n
}

// size is what a slot holds besides its encodings: its strings are the
// caller's too, but a cached message keeps them alive.
func (s *slot) size() int {
	n := 64
	for _, b := range s.msg.Content {
		n += len(b.Text) + len(b.ID) + len(b.Name) + len(b.Input) + len(b.ToolUseID) + 64
	}
	for _, e := range s.enc {
		n += len(e)
	}
	return n
}

func (e *part) size() int {
	n := len(e.enc) + 64
	for _, p := range e.parts {
		n += len(p) + 16
	}
	return n
}

// sameMessage reports whether two messages have the same content.
func sameMessage(a, b *llm.Message) bool {
	if !sameString(string(a.Role), string(b.Role)) || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		x, y := &a.Content[i], &b.Content[i]
		if !sameString(string(x.Type), string(y.Type)) || !sameString(x.Text, y.Text) || !sameString(x.ID, y.ID) || !sameString(x.Name, y.Name) ||
			!sameString(x.ToolUseID, y.ToolUseID) || x.IsError != y.IsError || !bytes.Equal(x.Input, y.Input) {
			return false
		}
	}
	return true
}

// sameString is a == b, told at once, without a call, for the strings
// of a resent message, which are the very ones kept (cloneMessage): the
// history's strings are compared on every call, and a call per string
// was most of what a call at step 200 spent comparing.
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// cloneMessage copies what a caller could change in place later: the
// block list and the tool inputs' bytes (strings cannot change).
func cloneMessage(m *llm.Message) llm.Message {
	out := llm.Message{Role: m.Role, Content: slices.Clone(m.Content)}
	for i := range out.Content {
		if in := out.Content[i].Input; in != nil {
			out.Content[i].Input = bytes.Clone(in)
		}
	}
	return out
}
