package agent

import (
	"context"
	"sync"

	"github.com/nightshift-dev/nightshift/llm"
)

// usageKey marks the context of a run's tool calls with the run.
type usageKey struct{}

// AddUsage counts u, the usage of model calls a tool made on the run's
// behalf (a subagent's), in the usage of the run whose tool call ctx
// belongs to: its outcome event and its record. It reports whether ctx
// belongs to a run's tool call.
func AddUsage(ctx context.Context, u llm.Usage) bool {
	r, ok := ctx.Value(usageKey{}).(*run)
	if !ok {
		return false
	}
	r.delegated.add(u)
	return true
}

// delegatedUsage gathers what tools add, from their own goroutines (a
// tool that outlived its timeout may still add), until the loop takes it.
type delegatedUsage struct {
	mu sync.Mutex
	u  llm.Usage
}

func (d *delegatedUsage) add(u llm.Usage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.u = d.u.Add(u)
}

func (d *delegatedUsage) take() llm.Usage {
	d.mu.Lock()
	defer d.mu.Unlock()
	u := d.u
	d.u = llm.Usage{}
	return u
}
