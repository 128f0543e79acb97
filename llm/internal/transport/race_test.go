//go:build race

package transport_test

// raceEnabled: the race detector makes sync.Pool drop what is put in it
// now and then, so what a request allocates is not measured.
const raceEnabled = true
