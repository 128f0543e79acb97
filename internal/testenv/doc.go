// Package testenv makes every test binary of nightshift start without the
// credentials of whoever runs it.
//
// A user who followed the README has ANTHROPIC_API_KEY or OPENAI_API_KEY
// exported when they run `go test ./...`. A test that read it would call
// a real provider with it, or print it in a failure message and so in a
// CI log. Every package's TestMain therefore starts with Scrub (or calls
// Main, which does nothing else), and the test in this package fails when
// a package with tests does not:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
//
// Tests that need a key make one up and give it to the code under test,
// or to a child process's environment, themselves.
package testenv
