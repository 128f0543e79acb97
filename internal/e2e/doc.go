// Package e2e holds end-to-end benchmarks that put the whole stack under
// load at once: many agent runs in one process, each through a real
// provider client (llm/anthropic, llm/openai) over loopback HTTP to one
// scripted simulator (llm/scripted.NewServer), with the real file tools
// over their own workspaces.
//
// It has no API; its tests are the point. Run them with
//
//	go test -run '^$' -bench ConcurrentSessions1000 -benchtime 3x ./internal/e2e/
//
// Each batch of 1,000 concurrent sessions reports its wall time, the CPU
// time it used and the peak of the Go heap and of the memory the runtime
// holds, sampled while the batch runs. 1,000 sessions hold about 3,000
// file descriptors at the peak (a connection at each end and a workspace
// each), far below the usual `ulimit -n` of a server but above the 1,024
// of some desktops: raise it there first.
package e2e
