package e2e

import (
	"runtime/metrics"
	"sync"
	"time"
)

// peakSampler follows the process's memory while a batch runs: the bytes
// of live and not yet swept heap objects, the bytes the last garbage
// collection found live, and every byte the Go runtime has mapped (heap,
// stacks, metadata), with the goroutine count. It reads
// runtime/metrics, which does not stop the world as ReadMemStats does.
type peakSampler struct {
	stop chan struct{}
	done sync.WaitGroup

	// first is the heap's size when sampling began.
	first uint64
	// The peaks; read them after end.
	heap, live, total, goroutines uint64
}

var peakMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/total:bytes",
	"/sched/goroutines:goroutines",
	"/gc/heap/live:bytes",
}

// sample starts sampling every interval until stopped.
func sample(interval time.Duration) *peakSampler {
	p := &peakSampler{stop: make(chan struct{})}
	s := make([]metrics.Sample, len(peakMetrics))
	for i, name := range peakMetrics {
		s[i].Name = name
	}
	p.read(s)
	p.first = p.heap
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.read(s)
				return
			case <-t.C:
				p.read(s)
			}
		}
	}()
	return p
}

func (p *peakSampler) read(s []metrics.Sample) {
	metrics.Read(s)
	p.heap = max(p.heap, s[0].Value.Uint64())
	p.total = max(p.total, s[1].Value.Uint64())
	p.goroutines = max(p.goroutines, s[2].Value.Uint64())
	p.live = max(p.live, s[3].Value.Uint64())
}

// end stops the sampling; the peaks are final once it returns.
func (p *peakSampler) end() *peakSampler {
	close(p.stop)
	p.done.Wait()
	return p
}
