package retry

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// Limiters hands out one Limiter per provider credential, so that every
// run in the process (a single run, a batch, the night's workers) shares
// the limiter of the credential it calls with. It keys limiters by a hash
// of the credential and never keeps the credential itself.
type Limiters struct {
	cfg LimiterConfig
	mu  sync.Mutex
	m   map[string]*Limiter
}

// NewLimiters returns a registry whose limiters all start from cfg (the
// hand-set --rpm and --tpm, the clock).
func NewLimiters(cfg LimiterConfig) *Limiters {
	return &Limiters{cfg: cfg, m: make(map[string]*Limiter)}
}

var (
	sharedOnce sync.Once
	shared     *Limiters
)

// Shared returns the process-wide registry, with default configuration,
// for library users who do not build their own.
func Shared() *Limiters {
	sharedOnce.Do(func() { shared = NewLimiters(LimiterConfig{}) })
	return shared
}

// For returns the limiter of one credential, creating it on first use.
// provider names the endpoint the credential is for, for example
// "anthropic", "openai" or an OpenAI-compatible base URL; the same key at
// two endpoints has two limits.
func (r *Limiters) For(provider, credential string) *Limiter {
	k := LimiterKey(provider, credential)
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.m[k]
	if !ok {
		l = NewLimiter(r.cfg)
		r.m[k] = l
	}
	return l
}

// LimiterKey is the registry key of a credential: the provider and the
// first 16 hex digits of a SHA-256 over provider and credential. It is
// safe to print: the credential cannot be read back from it.
func LimiterKey(provider, credential string) string {
	sum := sha256.Sum256([]byte(provider + "\x00" + credential))
	return provider + "/" + hex.EncodeToString(sum[:8])
}
