// Package mainstack grows the main goroutine's stack, once, before the
// packages of the binary that imports it are initialised.
//
// A goroutine starts with a small stack and, each time a call would
// overflow it, moves to one twice the size, copying every frame; to find
// the pointers in a frame the runtime reads its function's stack maps,
// which lie spread over the binary's table of function data (pclntab,
// 20 MB in nightshift). Go runs every linked package's initialisation on
// the main goroutine, and the SDKs' reflection goes deep enough to grow
// it several times there; a command's own calls then grow it again. Each
// copy faulted in pages of that table: 0.9 MiB of `nightshift
// --version`'s 23 MiB peak memory, 0.5 MiB of a 0-step run's 25.8
// (BenchmarkStart in cmd/nightshift). Growing it at the top of main, as
// before, saved a run 0.75 MiB but not initialisation's copies.
//
// Grown here, at the start of initialisation, the stack holds a few
// frames, and the copy reads the maps of those few. The package imports
// nothing, so that Go's order (a package after the packages it imports,
// and otherwise by import path) initialises it among the first; a test
// in cmd/nightshift holds it before every dependency that uses
// reflection at initialisation. The stack stays until a garbage
// collection finds it mostly unused.
//
// Import it for its effect, from a main package only:
//
//	import _ "github.com/nightshift-dev/nightshift/internal/mainstack"
package mainstack
