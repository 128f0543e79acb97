// Package lazyregexp is a regular expression compiled the first time it
// is used, not when its package is initialised: a package-level
// `var r = regexp.MustCompile(...)` is compiled by every start of
// nightshift, by `nightshift --help` as by a night, whether anything
// matches it or not (the claims check's hundred patterns cost a run's
// start 2.6 MB and 15,000 allocations). The shape is the standard
// library's own internal/lazyregexp.
//
//	var wordRe = lazyregexp.New(`^\w+`)
//
//	func firstWord(s string) string { return wordRe.FindString(s) }
//
// A pattern that does not compile panics where it is first used, as
// regexp.MustCompile panics at start; each package's tests use its
// patterns. New does nothing but fill a struct, so the compiler lays a
// package-level Regexp out as static data: no start runs code for it.
package lazyregexp
