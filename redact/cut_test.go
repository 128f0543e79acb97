package redact

import (
	"fmt"
	"strings"
	"testing"
)

// longKey is 108 characters long, as the key of the attack.
var longKey = "sk-ant-api03-" + strings.Repeat("Zq9xW3vB7nK2", 7) + "Pm4Lr8Ty1Hs6Dc0Jf5Wa7Ek3Gu9Nb2Qx6Vz1Yo8Ri4Ct7"

// longestPart returns the longest part of secret that s holds.
func longestPart(s, secret string) int {
	best := 0
	for i := range secret {
		for j := len(secret); j > i+best; j-- {
			if strings.Contains(s, secret[i:j]) {
				best = j - i
				break
			}
		}
	}
	return best
}

// holdsPart reports whether s holds n characters of secret in a row.
func holdsPart(s, secret string, n int) bool {
	for i := 0; i+n <= len(secret); i++ {
		if strings.Contains(s, secret[i:i+n]) {
			return true
		}
	}
	return false
}

// The cuts nightshift's code makes before a text reaches the redactor,
// each as a function of the text and where it is cut.
var cuts = []struct {
	name string
	cut  func(s string, n int) string
}{
	{"the head kept and marked with …, as an event's input and a first line are", func(s string, n int) string { return s[:n] + "…" }},
	{"the head kept and marked with … (N bytes more), as the audit log's summary is", func(s string, n int) string {
		return s[:n] + fmt.Sprintf("… (%d bytes more)", len(s)-n)
	}},
	{"the head kept with no mark", func(s string, n int) string { return s[:n] }},
	{"the head kept, inside JSON, as a tool's input is", func(s string, n int) string { return `{"command":"` + s[:n] + `…` }},
	{"the tail kept after a marker line, as a command's output is", func(s string, n int) string {
		return fmt.Sprintf("[output truncated: the first %d bytes were dropped; the last %d bytes follow]\n%s", n, len(s)-n, s[n:])
	}},
	{"the tail kept after ..., as a cmd: check's output tail is", func(s string, n int) string { return "...\n" + s[n:] }},
	{"the tail kept with no mark", func(s string, n int) string { return s[n:] }},
	{"the head kept, then another line", func(s string, n int) string { return s[:n] + "\nnext line" }},
}

// Regression (issue 25): an event's tool input, the audit log's summary
// and a command's output were cut to a length before they were
// redacted, and the part of the key before the cut (103 of its 108
// characters) was matched by nothing. Wherever the cut falls, fewer
// than MinLen of its characters are left.
func TestAKeyCutBeforeItWasRedactedIsMaskedAtTheCut(t *testing.T) {
	r := New(longKey)
	text := "run_command: echo " + longKey + " > /tmp/k; cat /tmp/k"
	from := strings.Index(text, longKey)
	for _, c := range cuts {
		t.Run(c.name, func(t *testing.T) {
			for n := from + 1; n < from+len(longKey); n++ {
				in := c.cut(text, n)
				got := r.String(in)
				if holdsPart(got, longKey, MinLen) {
					t.Fatalf("cut at %d of the key: %d characters of it left:\n%s", n-from, longestPart(got, longKey), got)
				}
			}
		})
	}
}

func TestAPartOfAKeyIsMaskedWherever(t *testing.T) {
	r := New(longKey)
	for _, part := range []string{longKey[20 : 20+FragmentLen], longKey[40:100], longKey[:60], longKey[70:]} {
		in := "before " + part + " after"
		if got := r.String(in); got != "before [redacted] after" {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
	// Fewer than FragmentLen characters in the middle of a text are no
	// part worth masking: they could be anything.
	if in := "x " + longKey[30:30+FragmentLen-1] + " y"; r.String(in) != in {
		t.Errorf("a part shorter than FragmentLen was masked: %q", r.String(in))
	}
}

func TestAShortSecretCutAtAnEdgeIsMasked(t *testing.T) {
	secret := "pw-0123456789" // 13 characters
	r := New(secret)
	for n := MinLen; n < len(secret); n++ {
		for _, in := range []string{"password=" + secret[:n] + "…", secret[len(secret)-n:] + " was the rest"} {
			if got := r.String(in); strings.Contains(got, secret[:MinLen]) || strings.Contains(got, secret[len(secret)-MinLen:]) {
				t.Errorf("String(%q) = %q", in, got)
			}
		}
	}
}
