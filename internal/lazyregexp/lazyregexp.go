package lazyregexp

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Regexp is a regexp.Regexp compiled on first use. It is safe for
// concurrent use, as regexp.Regexp is.
type Regexp struct {
	src   string
	needs []string // one of them is in every match (Needs); nil: no hint
	once  sync.Once
	ready atomic.Bool
	rx    *regexp.Regexp
	err   error
}

var (
	// hintedMu guards hinted, the Regexps given a hint (Needs), which
	// CheckNeeds verifies. Only those are listed: New itself does no
	// work, so that a package-level New is static data, laid out by the
	// linker, not code that every start runs.
	hintedMu sync.Mutex
	hinted   []*Regexp
	compiled atomic.Int64
)

// New returns a Regexp for the pattern str, compiled with
// regexp.MustCompile when it is first used.
func New(str string) *Regexp {
	return &Regexp{src: str}
}

// Needs says that every match of r holds one of lits, and returns r: a
// text that holds none of them is then known to have no match, and is
// answered without compiling r. A short text ("Nothing to do.") meets
// few of a check's patterns, and compiling the rest cost such a run a
// fifth of its memory. CheckNeeds verifies every such claim against the
// pattern; a package that uses Needs calls it in its tests.
func (r *Regexp) Needs(lits ...string) *Regexp {
	r.needs = lits
	hintedMu.Lock()
	hinted = append(hinted, r)
	hintedMu.Unlock()
	return r
}

// absent reports whether s holds none of r's needs, so that r cannot
// match it.
func (r *Regexp) absent(s string) bool {
	if r.needs == nil {
		return false
	}
	for _, l := range r.needs {
		if strings.Contains(s, l) {
			return false
		}
	}
	return true
}

// Regexp returns the compiled expression, compiling it now if it was
// not yet.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() {
		if r.rx, r.err = regexp.Compile(r.src); r.err == nil {
			compiled.Add(1)
			r.ready.Store(true)
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

// Ready reports whether r has been compiled: a test's hook to see which
// patterns a text made a process compile.
func (r *Regexp) Ready() bool { return r.ready.Load() }

// String returns the source text.
func (r *Regexp) String() string { return r.src }

// The methods of regexp.Regexp that nightshift uses, each compiling on
// first use, and a text without any of its needs answered as having
// no match, as the regexp package answers it.
func (r *Regexp) MatchString(s string) bool { return !r.absent(s) && r.Regexp().MatchString(s) }

func (r *Regexp) FindString(s string) string {
	if r.absent(s) {
		return ""
	}
	return r.Regexp().FindString(s)
}

func (r *Regexp) FindStringIndex(s string) []int {
	if r.absent(s) {
		return nil
	}
	return r.Regexp().FindStringIndex(s)
}

func (r *Regexp) FindStringSubmatch(s string) []string {
	if r.absent(s) {
		return nil
	}
	return r.Regexp().FindStringSubmatch(s)
}

func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	if r.absent(s) {
		return nil
	}
	return r.Regexp().FindStringSubmatchIndex(s)
}

func (r *Regexp) FindAllString(s string, n int) []string {
	if r.absent(s) {
		return nil
	}
	return r.Regexp().FindAllString(s, n)
}

func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	if r.absent(s) {
		return nil
	}
	return r.Regexp().FindAllStringIndex(s, n)
}

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	if r.absent(s) {
		return nil
	}
	return r.Regexp().FindAllStringSubmatch(s, n)
}

func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if r.absent(s) {
		return nil
	}
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}

func (r *Regexp) ReplaceAllString(src, repl string) string {
	if r.absent(src) {
		return src
	}
	return r.Regexp().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }
func (r *Regexp) SubexpIndex(name string) int    { return r.Regexp().SubexpIndex(name) }
func (r *Regexp) SubexpNames() []string          { return r.Regexp().SubexpNames() }
func (r *Regexp) NumSubexp() int                 { return r.Regexp().NumSubexp() }
