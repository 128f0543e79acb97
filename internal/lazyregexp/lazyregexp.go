package lazyregexp

import (
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
)

// Regexp is a regexp.Regexp compiled on first use. It is safe for
// concurrent use, as regexp.Regexp is.
type Regexp struct {
	src  string
	once sync.Once
	rx   *regexp.Regexp
	err  error
}

var (
	allMu    sync.Mutex
	all      []*Regexp
	compiled atomic.Int64
)

// New returns a Regexp for the pattern str, compiled with
// regexp.MustCompile when it is first used.
func New(str string) *Regexp {
	r := &Regexp{src: str}
	allMu.Lock()
	all = append(all, r)
	allMu.Unlock()
	return r
}

// Regexp returns the compiled expression, compiling it now if it was
// not yet.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() {
		if r.rx, r.err = regexp.Compile(r.src); r.err == nil {
			compiled.Add(1)
		}
	})
	if r.err != nil {
		// As regexp.MustCompile says it, at every use.
		panic("regexp: Compile(" + strconv.Quote(r.src) + "): " + r.err.Error())
	}
	return r.rx
}

// Compiled returns how many Regexps this process has compiled: a test's
// hook to see that a start compiled none.
func Compiled() int64 { return compiled.Load() }

// CompileAll compiles every Regexp made so far, so that a test finds a
// pattern that does not compile without using it; it panics as
// regexp.MustCompile does.
func CompileAll() {
	allMu.Lock()
	rs := append([]*Regexp(nil), all...)
	allMu.Unlock()
	for _, r := range rs {
		r.Regexp()
	}
}

// String returns the source text.
func (r *Regexp) String() string { return r.src }

// The methods of regexp.Regexp that nightshift uses, each compiling on
// first use.

func (r *Regexp) MatchString(s string) bool      { return r.Regexp().MatchString(s) }
func (r *Regexp) FindString(s string) string     { return r.Regexp().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string {
	return r.Regexp().FindStringSubmatch(s)
}
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }
func (r *Regexp) SubexpIndex(name string) int    { return r.Regexp().SubexpIndex(name) }
func (r *Regexp) SubexpNames() []string          { return r.Regexp().SubexpNames() }
func (r *Regexp) NumSubexp() int                 { return r.Regexp().NumSubexp() }
