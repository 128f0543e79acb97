package stall

import (
	"sync"
	"time"
)

// DefaultPerToken is the first-byte allowance per prompt token until a
// server's own speed has been seen: 20 ms, a prompt read at 50 tokens a
// second, which is how slowly a 7B model reads on a few CPU cores. A
// local server sends nothing on a stream until it has read the whole
// prompt (llama.cpp, measured: a 270M model on 2 cores took the default
// two minutes at about 24,000 prompt tokens), so a long prompt's first
// byte comes late without anything having stalled.
const DefaultPerToken = 20 * time.Millisecond

// minObserved is the fewest prompt tokens a first byte is learnt from:
// below it, the time is the call's overhead more than the prompt's.
const minObserved = 256

// headroom multiplies the speed seen: the next prompt may be read more
// slowly (a longer prompt costs more per token), and a wrong stall costs
// more than a late one.
const headroom = 2

// Prefill is what a client knows of how fast its server reads a prompt:
// the allowance per prompt token until the first byte of a stream, and
// the speed seen on the client's calls so far. It is safe for concurrent
// use.
type Prefill struct {
	perToken time.Duration

	mu   sync.Mutex
	seen time.Duration // the latest observed time per token
}

// NewPrefill returns a Prefill allowing perToken per prompt token until
// the server's speed has been seen; 0 is DefaultPerToken, negative allows
// nothing (the watch allows the plain stall time).
func NewPrefill(perToken time.Duration) *Prefill {
	if perToken == 0 {
		perToken = DefaultPerToken
	}
	return &Prefill{perToken: perToken}
}

// Allowance is the first-byte allowance for a prompt of tokens tokens: at
// the speed seen (with headroom), else at the configured allowance.
func (p *Prefill) Allowance(tokens int64) time.Duration {
	if p == nil || p.perToken < 0 || tokens <= 0 {
		return 0
	}
	p.mu.Lock()
	per := p.perToken
	if p.seen > 0 {
		per = headroom * p.seen
	}
	p.mu.Unlock()
	return time.Duration(tokens) * per
}

// Observe learns from a call whose first byte took took, for a prompt of
// which tokens were read anew (not from the server's cache).
func (p *Prefill) Observe(tokens int64, took time.Duration) {
	if p == nil || tokens < minObserved || took <= 0 {
		return
	}
	p.mu.Lock()
	p.seen = took / time.Duration(tokens)
	p.mu.Unlock()
}
