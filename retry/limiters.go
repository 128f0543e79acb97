package retry

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// Limiters hands out one Limiter per provider credential, so that every
// run in the process (a single run, a batch, the night's workers) shares
// the limiter of the credential it calls with. With LimiterConfig.Dir set,
// each limiter is also shared with the other processes of the machine
// (OpenLimiter). It keys limiters by a hash of the credential and never
// keeps the credential itself.
type Limiters struct {
	cfg LimiterConfig
	mu  sync.Mutex
	m   map[string]*Limiter
	err error
}

// NewLimiters returns a registry whose limiters all start from cfg (the
// hand-set --rpm and --tpm, the clock, the folder they share through).
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
// two endpoints has two limits. When the registry shares through a folder
// and the limiter's file cannot be opened, the limiter paces this process
// alone and Err says why.
func (r *Limiters) For(provider, credential string) *Limiter {
	k := LimiterKey(provider, credential)
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.m[k]
	if !ok {
		cfg := r.cfg
		if cfg.Share != nil && !cfg.Share(provider) {
			cfg.Dir = ""
		}
		var err error
		if l, err = OpenLimiter(cfg, provider, credential); err != nil {
			r.err = cmp.Or(r.err, err)
			l = NewLimiter(r.cfg)
		}
		r.m[k] = l
	}
	return l
}

// Err returns the first failure to share a limiter with the other
// processes (opening, locking, reading or writing its file), or nil.
func (r *Limiters) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	for _, l := range r.m {
		if err := l.Err(); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the limiters' sharing (they go on pacing this process on
// what they know) and returns the first error met while sharing.
func (r *Limiters) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.err
	for _, l := range r.m {
		err = cmp.Or(err, l.Close())
	}
	return err
}

// LimiterKey is the registry key of a credential: the provider and the
// first 16 hex digits of a SHA-256 over provider and credential. It is
// safe to print: the credential cannot be read back from it.
func LimiterKey(provider, credential string) string {
	sum := sha256.Sum256([]byte(provider + "\x00" + credential))
	return provider + "/" + hex.EncodeToString(sum[:8])
}
