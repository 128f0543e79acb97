package breaker

import (
	"cmp"
	"net/url"
	"strings"
	"sync"
)

// Breakers hands out one Breaker per endpoint and credential, so that
// every run of the process (a run, a batch's tasks, the night's workers)
// that calls one endpoint with one key shares its breaker; with Dir set,
// the machine's other processes share it too (Share). It keeps a hash of
// the credential only, in the file's name.
type Breakers struct {
	dir string
	// share, when set, says whether an endpoint's breaker is shared
	// through dir (a scripted model answers in its own process).
	share func(endpoint string) bool

	mu  sync.Mutex
	m   map[string]*Breaker
	err error
}

// NewBreakers returns a registry whose breakers are shared through dir
// ("": within this process) for the endpoints share accepts (nil: all).
func NewBreakers(dir string, share func(endpoint string) bool) *Breakers {
	return &Breakers{dir: dir, share: share, m: make(map[string]*Breaker)}
}

// For returns the breaker of one endpoint (package internal/endpoint's
// Key.Endpoint: "PROVIDER BASEURL") and credential under cfg: one state
// per endpoint and credential, made on first use, and cfg the caller's
// (Breaker.With): a batch's task or a pipeline's role with its own
// breaker: key has its threshold and cool-off applied to its own calls,
// whichever run called the endpoint first. Where its file cannot be
// opened, the breaker is this process's alone and Err says why.
func (r *Breakers) For(endpoint, credential string, cfg Config) *Breaker {
	if r == nil {
		return nil
	}
	k := endpoint + "\x00" + credential
	r.mu.Lock()
	defer r.mu.Unlock()
	if b, ok := r.m[k]; ok {
		return b.With(cfg)
	}
	dir := r.dir
	if r.share != nil && !r.share(endpoint) {
		dir = ""
	}
	b, err := Share(cfg, Host(endpoint), dir, endpoint, credential)
	if err != nil {
		r.err = cmp.Or(r.err, err)
		b = New(cfg, Host(endpoint))
	}
	r.m[k] = b
	return b
}

// All returns the registry's breakers.
func (r *Breakers) All() []*Breaker {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Breaker, 0, len(r.m))
	for _, b := range r.m {
		out = append(out, b)
	}
	return out
}

// Err returns the first failure to share a breaker, or nil.
func (r *Breakers) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	for _, b := range r.m {
		if err := b.Err(); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the breakers' sharing and returns the first error met
// while sharing.
func (r *Breakers) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.err
	for _, b := range r.m {
		err = cmp.Or(err, b.Close())
	}
	return err
}

// Host is the host an endpoint ("PROVIDER BASEURL") is named by in the
// breaker's events: the base URL's host and port, else the provider
// ("scripted" for an in-process scenario).
func Host(endpoint string) string {
	provider, base, _ := strings.Cut(endpoint, " ")
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return cmp.Or(provider, endpoint)
}
