package mainstack

// Size is the frame that grows the stack: with it, the main goroutine's
// stack is 128 KiB, what a run's deepest calls reach (measured with a
// probe on runtime.copystack: with it, the main goroutine's stack is not
// copied again during a 0-step run).
const Size = 120 << 10

func init() { grow(1) }

// grow takes a frame of Size bytes. It must be a real frame: the
// compiler would drop an array nothing reads, so grow writes one byte and
// reads another, chosen by n, which it cannot know.
//
//go:noinline
func grow(n int) byte {
	var pad [Size]byte
	pad[n%len(pad)] = 1
	return pad[n%len(pad)/2]
}
