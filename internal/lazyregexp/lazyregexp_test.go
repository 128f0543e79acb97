package lazyregexp

import "testing"

func TestARegexpIsCompiledWhenFirstUsedNotWhenMade(t *testing.T) {
	before := Compiled()
	r := New(`^(\w+) (\w+)$`)
	if n := Compiled() - before; n != 0 {
		t.Fatalf("New compiled %d expressions, want none", n)
	}
	if got := r.FindStringSubmatch("hello world"); len(got) != 3 || got[2] != "world" {
		t.Errorf("FindStringSubmatch = %q", got)
	}
	if !r.MatchString("a b") || r.MatchString("a") {
		t.Error("MatchString disagrees with the pattern")
	}
	if n := Compiled() - before; n != 1 {
		t.Errorf("two uses compiled %d times, want once", n)
	}
}

func TestABadPatternPanicsAtFirstUseAndInCompileAll(t *testing.T) {
	r := New(`(`)
	for name, use := range map[string]func(){"first use": func() { r.MatchString("") }, "CompileAll": CompileAll} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: a pattern that does not compile did not panic", name)
				}
			}()
			use()
		}()
	}
	// Drop it, so that CompileAll stays usable by other tests.
	allMu.Lock()
	all = all[:len(all)-1]
	allMu.Unlock()
}
