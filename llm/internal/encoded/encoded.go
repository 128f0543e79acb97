// Package encoded keeps the wire encoding of the messages a provider has
// sent, so that each message of a conversation is encoded once, not once
// per call: an agent's call at step 200 resends 199 steps of history, and
// encoding them again with the SDKs' reflection-based encoders made the
// harness's own cost per step grow with the conversation (issue 15).
//
// Entries are keyed by content, never by identity: a message that is
// equal to one encoded before gets the same bytes, whoever built it, and a
// message that differs in any byte is encoded anew. A lookup hashes the
// message and compares it with the entry found, field by field; strings
// that share their memory (the history an agent resends) compare in
// constant time, so a hit costs little more than the hash.
package encoded

import (
	"bytes"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/nightshift-dev/nightshift/llm"
)

// DefaultMaxBytes bounds the encodings one Cache keeps: enough for the
// histories of dozens of long runs at once. Past it, the least recently
// used half goes.
const DefaultMaxBytes = 64 << 20

// Cache keeps encodings. It is safe for concurrent use; a provider client
// holds one for all its calls.
type Cache struct {
	seed maphash.Seed
	max  int

	mu      sync.Mutex
	entries map[uint64][]*entry
	bytes   int
	tick    uint64
}

// entry is one encoding: of a message (msg set) or of a list of strings
// (parts set; a request's head: its system prompt and tools).
type entry struct {
	form  int
	msg   llm.Message
	parts []string
	enc   []byte
	used  uint64
}

// New returns a Cache keeping at most maxBytes of encodings (0:
// DefaultMaxBytes).
func New(maxBytes int) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Cache{seed: maphash.MakeSeed(), max: maxBytes, entries: make(map[uint64][]*entry)}
}

// Message returns the encoding of m in the given form (a provider's own
// variants: with or without a cache breakpoint, say), made by enc on the
// first request and kept. The bytes returned must not be modified.
func (c *Cache) Message(m *llm.Message, form int, enc func() ([]byte, error)) ([]byte, error) {
	h := c.hashMessage(m, form)
	c.mu.Lock()
	for _, e := range c.entries[h] {
		if e.form == form && e.parts == nil && sameMessage(&e.msg, m) {
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
	c.put(h, &entry{form: form, msg: cloneMessage(m), enc: b})
	return b, nil
}

// Parts returns the encoding of a list of strings in the given form (a
// request's head, for example: its system prompt and tools' specs), made
// by enc on the first request and kept.
func (c *Cache) Parts(parts []string, form int, enc func() ([]byte, error)) ([]byte, error) {
	var mh maphash.Hash
	mh.SetSeed(c.seed)
	writeInt(&mh, form)
	writeInt(&mh, len(parts))
	for _, p := range parts {
		writeString(&mh, p)
	}
	h := mh.Sum64()
	c.mu.Lock()
	for _, e := range c.entries[h] {
		if e.form == form && e.parts != nil && slices.Equal(e.parts, parts) {
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
	// A nil list still marks a parts entry.
	c.put(h, &entry{form: form, parts: append(make([]string, 0, len(parts)), parts...), enc: b})
	return b, nil
}

// put stores e under h, making room first when the cache is full.
func (c *Cache) put(h uint64, e *entry) {
	size := e.size()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, old := range c.entries[h] {
		if old.form == e.form && ((e.parts == nil && old.parts == nil && sameMessage(&old.msg, &e.msg)) ||
			(e.parts != nil && old.parts != nil && slices.Equal(old.parts, e.parts))) {
			return // a concurrent call stored it first
		}
	}
	if c.bytes+size > c.max {
		c.evict()
	}
	c.tick++
	e.used = c.tick
	c.entries[h] = append(c.entries[h], e)
	c.bytes += size
}

// evict drops the least recently used half of the entries (by bytes).
// It runs once per half of the cache's capacity at most, so its sort is
// paid for by many stores.
func (c *Cache) evict() {
	type ref struct {
		h uint64
		e *entry
	}
	var all []ref
	for h, es := range c.entries {
		for _, e := range es {
			all = append(all, ref{h, e})
		}
	}
	slices.SortFunc(all, func(a, b ref) int {
		switch {
		case a.e.used < b.e.used:
			return -1
		case a.e.used > b.e.used:
			return 1
		}
		return 0
	})
	for _, r := range all {
		if c.bytes <= c.max/2 {
			break
		}
		es := c.entries[r.h]
		i := slices.Index(es, r.e)
		es = slices.Delete(es, i, i+1)
		if len(es) == 0 {
			delete(c.entries, r.h)
		} else {
			c.entries[r.h] = es
		}
		c.bytes -= r.e.size()
	}
}

// Len is the number of encodings kept, for tests.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, es := range c.entries {
		n += len(es)
	}
	return n
}

func (e *entry) size() int {
	n := len(e.enc) + 64
	for _, b := range e.msg.Content {
		n += len(b.Text) + len(b.ID) + len(b.Name) + len(b.Input) + len(b.ToolUseID) + 64
	}
	for _, p := range e.parts {
		n += len(p) + 16
	}
	return n
}

func (c *Cache) hashMessage(m *llm.Message, form int) uint64 {
	var mh maphash.Hash
	mh.SetSeed(c.seed)
	writeInt(&mh, form)
	writeString(&mh, string(m.Role))
	for i := range m.Content {
		b := &m.Content[i]
		writeString(&mh, string(b.Type))
		writeString(&mh, b.Text)
		writeString(&mh, b.ID)
		writeString(&mh, b.Name)
		writeInt(&mh, len(b.Input))
		mh.Write(b.Input)
		writeString(&mh, b.ToolUseID)
		if b.IsError {
			mh.WriteByte(1)
		} else {
			mh.WriteByte(0)
		}
	}
	return mh.Sum64()
}

// writeString writes s length-prefixed, so that no two sequences of
// fields hash alike by shifting bytes between neighbours.
func writeString(h *maphash.Hash, s string) {
	writeInt(h, len(s))
	h.WriteString(s)
}

func writeInt(h *maphash.Hash, n int) {
	var b [8]byte
	for i := range b {
		b[i] = byte(n >> (8 * i))
	}
	h.Write(b[:])
}

// sameMessage reports whether two messages have the same content.
func sameMessage(a, b *llm.Message) bool {
	if a.Role != b.Role || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		x, y := &a.Content[i], &b.Content[i]
		if x.Type != y.Type || x.Text != y.Text || x.ID != y.ID || x.Name != y.Name ||
			x.ToolUseID != y.ToolUseID || x.IsError != y.IsError || !bytes.Equal(x.Input, y.Input) {
			return false
		}
	}
	return true
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
