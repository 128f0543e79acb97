// Command pacebench measures how separate `nightshift run` processes pace
// themselves under a provider's rate limit (issue 26): it starts
// `nightshift sim serve --limit N --per W`, with rate-limit headers or
// with bare 429s (--no-headers), runs 1 or 20 processes that share one
// state directory (and so one limiter file), each doing its share of the
// calls, and prints per cell the wall time, the ideal time, time ÷ ideal
// with the first window not counted (warm-up), the calls and the calls
// answered 429.
//
// It runs in real time (the 60-second cells take minutes each), so it is
// run by hand, never by `go test`:
//
//	go run ./internal/pacebench                       # all 12 cells
//	go run ./internal/pacebench -limits 2/1s -procs 20 -modes bare
//
// The goal in every cell: time ÷ ideal ≤ 1.25 and at most 10 % of calls
// answered 429.
package main
