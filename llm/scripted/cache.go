package scripted

import (
	"encoding/json"
	"hash/maphash"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/internal/cachepoint"
)

// The prompt cache the simulator keeps, as the providers keep theirs, so
// that caching is tested and measured offline (docs/scenarios.md, "Prompt
// caching"):
//
//   - a prompt is a sequence of pieces, in the providers' order: each
//     tool, the system prompt, then every content block of every message;
//     a piece counts a quarter of its characters in tokens (rounded up, at
//     least 1), the same estimate on both wires;
//   - one cache per session (X-Sim-Session, Config.Session), shared by
//     every conversation in it, as a provider's cache is shared by an
//     organisation's requests; entries are per wire and per model;
//   - an entry lives 5 minutes on the simulator's clock (or the hour an
//     Anthropic breakpoint's ttl asks for), renewed each time it is read;
//   - Anthropic writes an entry at each breakpoint (cache_control on a
//     tool, a system block or a content block, or the request's top-level
//     cache_control, which stands for its last block) whose prefix is at
//     least the model's minimum, and reads the longest entry found at a
//     breakpoint or up to 20 pieces before one; cache_read_input_tokens
//     is that entry's length, cache_creation_input_tokens what lies
//     between it and the last breakpoint, input_tokens the rest;
//   - OpenAI caches every prompt of at least 1,024 tokens, by prefix, and
//     reads the longest cached prefix, counted as 1,024 tokens and then
//     steps of 128 (prompt_tokens_details.cached_tokens); it reports no
//     writes;
//   - in process, the model caches as the Anthropic API does, with the
//     breakpoints nightshift's Anthropic provider sets (the head and the
//     rolling turns; none with Request.NoCache).

// Cache lifetimes and limits.
const (
	// cacheTTL is an entry's default lifetime after its last use.
	cacheTTL = 5 * time.Minute
	// cacheTTLLong is Anthropic's "1h" lifetime.
	cacheTTLLong = time.Hour
	// lookback is how many pieces before a breakpoint Anthropic looks
	// for an entry.
	lookback = 20
	// openaiMinCached and openaiStep are OpenAI's minimum cached prefix
	// and the steps it counts cached tokens in.
	openaiMinCached = 1024
	openaiStep      = 128
	// maxCacheEntries bounds the entries of a long-running simulator.
	maxCacheEntries = 1 << 20
)

// minCacheable is the shortest prefix, in tokens, that Anthropic caches
// for model, by family: 4,096 for Claude Opus 4.5 and 4.6 and Haiku 4.5,
// 2,048 for Haiku 3 and 3.5, 1,024 for the others (Sonnet 4.x, Opus 4 and
// 4.1, and any model not named, "scripted" included). Figures from
// Anthropic's prompt caching guide as quoted in
// github.com/anthropics/anthropic-sdk-python/issues/1194, read 2026-12.
func minCacheable(model string) int64 {
	for _, p := range []string{"claude-opus-4-5", "claude-opus-4-6", "claude-haiku-4-5"} {
		if strings.HasPrefix(model, p) {
			return 4096
		}
	}
	for _, p := range []string{"claude-3-haiku", "claude-3-5-haiku"} {
		if strings.HasPrefix(model, p) {
			return 2048
		}
	}
	return 1024
}

// piece is one piece of a prompt: its end, in tokens from the start of
// the prompt, the hash of the prompt up to it, and its breakpoint's
// lifetime (zero: none).
type piece struct {
	end  int64
	hash uint64
	ttl  time.Duration
}

// prompt is a request's prompt as the cache sees it.
type prompt struct {
	pieces []piece
}

// tokens is the prompt's estimated size.
func (p *prompt) tokens() int64 {
	if len(p.pieces) == 0 {
		return 1
	}
	return p.pieces[len(p.pieces)-1].end
}

// cacheUse is what a request's prompt did with the cache.
type cacheUse struct {
	write, read int64
}

// entry is a cached prefix: when it expires, and the lifetime a read
// renews.
type cacheEntry struct {
	expires time.Time
	ttl     time.Duration
}

type cacheKey struct {
	session string
	hash    uint64
}

// promptCache is one simulator's cache, all sessions.
type promptCache struct {
	clock clock.Clock
	seed  maphash.Seed

	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
	swept   time.Time
}

func newPromptCache(c clock.Clock) *promptCache {
	return &promptCache{clock: c, seed: maphash.MakeSeed(), entries: make(map[cacheKey]cacheEntry)}
}

// marks holds a request's breakpoints: the pieces that carry one, by
// index, with their lifetimes.
type marks map[int]time.Duration

// promptOf splits req into pieces, hashed from the wire and model on
// (the providers' caches are per model), with the breakpoints bp.
func (c *promptCache) promptOf(req *llm.Request, w wire, bp marks) *prompt {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(string(w))
	h.WriteByte(0)
	h.WriteString(req.Model)
	prev := h.Sum64()
	p := &prompt{pieces: make([]piece, 0, len(req.Tools)+1+2*len(req.Messages))}
	var end int64
	add := func(kind byte, chars int, parts ...string) {
		h.Reset()
		var b [9]byte
		b[0] = kind
		for i := range 8 {
			b[1+i] = byte(prev >> (8 * i))
		}
		h.Write(b[:])
		for _, s := range parts {
			writeLenString(&h, s)
		}
		prev = h.Sum64()
		end += estimate(chars)
		p.pieces = append(p.pieces, piece{end: end, hash: prev, ttl: bp[len(p.pieces)]})
	}
	for _, t := range req.Tools {
		schema := canonicalSchema(t.InputSchema)
		add('t', len(t.Name)+len(t.Description)+len(schema), t.Name, t.Description, schema)
	}
	if req.System != "" {
		add('s', len(req.System), req.System)
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case llm.ToolUseBlock:
				add('u', len(b.Name)+len(b.Input), string(m.Role), b.ID, b.Name, string(b.Input))
			case llm.ToolResultBlock:
				errMark := ""
				if b.IsError {
					errMark = "error"
				}
				add('r', len(b.Text), string(m.Role), b.ToolUseID, b.Text, errMark)
			default:
				add('x', len(b.Text), string(m.Role), b.Text)
			}
		}
	}
	return p
}

// canonicalSchema is a tool's schema as the estimate counts it: compact,
// keys sorted, without the top-level members that say nothing (null, {}
// or []), so that one tool counts alike on both wires although each
// client spells an empty schema its own way.
func canonicalSchema(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			if len(v) == 0 {
				delete(m, k)
			}
		case []any:
			if len(v) == 0 {
				delete(m, k)
			}
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func writeLenString(h *maphash.Hash, s string) {
	var b [8]byte
	for i := range b {
		b[i] = byte(len(s) >> (8 * i))
	}
	h.Write(b[:])
	h.WriteString(s)
}

// headAndRolling is the breakpoints nightshift's Anthropic provider sets
// on req (llm/internal/cachepoint), as pieces of promptOf: the end of the
// head (the system prompt, else the last tool), and the last block of
// each rolling message.
func headAndRolling(req *llm.Request) marks {
	if req.NoCache {
		return nil
	}
	bp := marks{}
	head := len(req.Tools) - 1
	if req.System != "" {
		head = len(req.Tools)
	}
	if head >= 0 {
		bp[head] = cacheTTL
	}
	// The messages with content, and the index of each one's last piece.
	var kept []llm.Message
	var lastPiece []int
	n := head + 1
	for _, m := range req.Messages {
		n += len(m.Content)
		if len(m.Content) > 0 {
			kept = append(kept, m)
			lastPiece = append(lastPiece, n-1)
		}
	}
	for _, i := range cachepoint.Rolling(kept) {
		bp[lastPiece[i]] = cacheTTL
	}
	return bp
}

// explicit is Anthropic's caching: reads at or shortly before
// breakpoints, writes at breakpoints, in session, for a model whose
// minimum is min.
func (c *promptCache) explicit(session string, p *prompt, min int64) cacheUse {
	var points []int
	for i, pc := range p.pieces {
		if pc.ttl > 0 {
			points = append(points, i)
		}
	}
	if len(points) == 0 {
		return cacheUse{}
	}
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	hit := -1
	for _, b := range points {
		for j := b; j >= max(0, b-lookback) && j > hit; j-- {
			if c.live(session, p.pieces[j].hash, now) {
				hit = j
				break
			}
		}
	}
	var use cacheUse
	if hit >= 0 {
		use.read = p.pieces[hit].end
		c.renew(session, p.pieces[hit].hash, now)
	}
	last := points[len(points)-1]
	if last > hit && p.pieces[last].end >= min {
		use.write = p.pieces[last].end - use.read
		for _, b := range points {
			if b > hit && p.pieces[b].end >= min {
				c.store(session, p.pieces[b].hash, p.pieces[b].ttl, now)
			}
		}
	}
	return use
}

// automatic is OpenAI's caching: the longest cached prefix is read, in
// steps, and every prefix of the prompt from the minimum on is cached.
func (c *promptCache) automatic(session string, p *prompt) cacheUse {
	if p.tokens() < openaiMinCached {
		return cacheUse{}
	}
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	var use cacheUse
	for j := len(p.pieces) - 1; j >= 0 && p.pieces[j].end >= openaiMinCached; j-- {
		if c.live(session, p.pieces[j].hash, now) {
			use.read = openaiMinCached + (p.pieces[j].end-openaiMinCached)/openaiStep*openaiStep
			break
		}
	}
	for _, pc := range p.pieces {
		if pc.end >= openaiMinCached {
			c.store(session, pc.hash, cacheTTL, now)
		}
	}
	return use
}

func (c *promptCache) live(session string, h uint64, now time.Time) bool {
	e, ok := c.entries[cacheKey{session, h}]
	return ok && now.Before(e.expires)
}

func (c *promptCache) renew(session string, h uint64, now time.Time) {
	k := cacheKey{session, h}
	e := c.entries[k]
	e.expires = now.Add(e.ttl)
	c.entries[k] = e
}

func (c *promptCache) store(session string, h uint64, ttl time.Duration, now time.Time) {
	k := cacheKey{session, h}
	if e, ok := c.entries[k]; ok && e.ttl > ttl && now.Before(e.expires) {
		ttl = e.ttl // a shorter breakpoint does not shorten a longer entry
	}
	c.entries[k] = cacheEntry{expires: now.Add(ttl), ttl: ttl}
}

// sweep drops expired entries, at most once a minute of the clock, and
// everything when a long-running simulator has too many.
func (c *promptCache) sweep(now time.Time) {
	if len(c.entries) >= maxCacheEntries {
		clear(c.entries)
	}
	if now.Sub(c.swept) < time.Minute {
		return
	}
	c.swept = now
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
}
