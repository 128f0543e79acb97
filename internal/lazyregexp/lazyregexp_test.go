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

func TestABadPatternPanicsAtEveryUse(t *testing.T) {
	r := New(`(`)
	for i := range 2 {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("use %d: a pattern that does not compile did not panic", i+1)
				}
			}()
			r.MatchString("")
		}()
	}
}

func TestATextWithoutTheNeedsIsAnsweredWithoutCompiling(t *testing.T) {
	r := New("`([^`]+)`|\"([^\"]+)\"").Needs("`", `"`)
	before := Compiled()
	if r.MatchString("no quotes here") || r.FindAllStringSubmatchIndex("none", -1) != nil || r.ReplaceAllString("plain", "x") != "plain" {
		t.Error("a text with none of the needs matched")
	}
	if n := Compiled() - before; n != 0 {
		t.Errorf("texts without the needs compiled the pattern %d times, want none", n)
	}
	if got := r.FindStringSubmatch("say `go test` now"); len(got) != 3 || got[1] != "go test" {
		t.Errorf("FindStringSubmatch = %q", got)
	}
	if n := Compiled() - before; n != 1 {
		t.Errorf("a text with a need compiled %d times, want once", n)
	}
	dropHinted(1)
}

func TestCheckNeedsProvesOrRefusesEachHint(t *testing.T) {
	for _, c := range []struct {
		src   string
		needs []string
		ok    bool
	}{
		{"`([^`]+)`|\"([^\"]+)\"", []string{"`", `"`}, true},
		{"`([^`]+)`|\"([^\"]+)\"", []string{"`"}, false}, // a quoted name has no backtick
		{`[0-9]+(?:\.[0-9]+)?`, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, true},
		{`[0-9]*x`, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, false}, // "x" alone matches
		{`\b(?:Makefile|README)\b`, []string{"Makefile", "README"}, true},
		{`\b(?:Makefile|README)\b`, []string{"Make", "READ"}, true},
		{`\b(?:Makefile|README)\b`, []string{"Makefile"}, false},
		{`(?i)readme`, []string{"r", "R"}, true},
		{`(?i)readme`, []string{"readme"}, false}, // README matches too
		{`a?`, []string{"a"}, false},              // matches the empty string
		{`\w+`, []string{"a"}, false},             // too wide to list
	} {
		err := checkNeeds(c.src, c.needs)
		if (err == nil) != c.ok {
			t.Errorf("checkNeeds(%q, %q) = %v, want ok=%v", c.src, c.needs, err, c.ok)
		}
	}
}

// dropHinted forgets the last n Regexps given a hint, so that
// CheckNeeds stays usable by other tests.
func dropHinted(n int) {
	hintedMu.Lock()
	hinted = hinted[:len(hinted)-n]
	hintedMu.Unlock()
}

// A package-level Regexp is static data: New must stay a function the
// compiler can inline into a composite literal (nothing but the struct).
var static = New(`^static$`)

func TestNewDoesNoWork(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = New(`x`) }); n > 1 {
		t.Errorf("New allocates %v times, want at most the Regexp itself", n)
	}
	if !static.MatchString("static") {
		t.Error("a package-level Regexp does not match")
	}
}
