package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// wrapLines breaks s into lines of n characters, each ended by sep.
func wrapLines(s string, n int, sep string) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + sep)
		s = s[n:]
	}
	return b.String() + s + sep
}

// xxdLines writes data as `xxd` does: an offset, 16 bytes as eight
// groups of four hex digits, and the bytes as text.
func xxdLines(data []byte) string {
	var b strings.Builder
	for off := 0; off < len(data); off += 16 {
		line := data[off:min(off+16, len(data))]
		fmt.Fprintf(&b, "%08x: ", off)
		h := hex.EncodeToString(line)
		for i := 0; i < 32; i += 4 {
			if i < len(h) {
				b.WriteString(h[i:min(i+4, len(h))])
			}
			b.WriteByte(' ')
		}
		b.WriteString(" ")
		for _, c := range line {
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			b.WriteByte(c)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// The encoders' output shapes, each as a function of the bytes encoded.
var encoders = []struct {
	name string
	enc  func([]byte) string
}{
	{"base64 -w0", base64.StdEncoding.EncodeToString},
	{"base64 (76 columns)", func(b []byte) string { return wrapLines(base64.StdEncoding.EncodeToString(b), 76, "\n") }},
	{"openssl base64 (64 columns)", func(b []byte) string { return wrapLines(base64.StdEncoding.EncodeToString(b), 64, "\n") }},
	{"base64 with CRLF line ends (certutil, a mail body)", func(b []byte) string { return wrapLines(base64.StdEncoding.EncodeToString(b), 76, "\r\n") }},
	{"base64 -w 50", func(b []byte) string { return wrapLines(base64.StdEncoding.EncodeToString(b), 50, "\n") }},
	{"URL-safe base64, wrapped", func(b []byte) string { return wrapLines(base64.URLEncoding.EncodeToString(b), 64, "\n") }},
	{"base32 (76 columns)", func(b []byte) string { return wrapLines(base32.StdEncoding.EncodeToString(b), 76, "\n") }},
	{"xxd -p (60 columns)", func(b []byte) string { return wrapLines(hex.EncodeToString(b), 60, "\n") }},
	{"hex in capitals, wrapped", func(b []byte) string { return wrapLines(strings.ToUpper(hex.EncodeToString(b)), 32, "\n") }},
	{"xxd", xxdLines},
	{"base64 wrapped, inside a JSON string", func(b []byte) string {
		j, _ := json.Marshal(wrapLines(base64.StdEncoding.EncodeToString(b), 76, "\n"))
		return string(j)
	}},
	{"base64 wrapped, after a label", func(b []byte) string { return "token: " + wrapLines(base64.StdEncoding.EncodeToString(b), 76, "\n") }},
	{"the key itself, folded at 10 columns", func(b []byte) string { return wrapLines(string(b), 10, "\n") }},
	{"the key itself, folded at 4 columns", func(b []byte) string { return wrapLines(string(b), 4, "\n") }},
	{"the key itself, one character a line", func(b []byte) string { return wrapLines(string(b), 1, "\n") }},
}

// Regression (issue 25): base64, `openssl base64` and `xxd -p` output
// was matched only when the key began the stream; in the middle of a
// wrapped stream, split across its lines, it went through whole. Each
// shape, with the key at offsets that cover every alignment (base64's
// three, base32's five), leaves nothing of the key's encoding but the
// few characters that mix its bits with a neighbour's.
func TestAKeyInTheMiddleOfAWrappedStreamIsMasked(t *testing.T) {
	r := New(longKey)
	forms := variants(longKey)
	for _, e := range encoders {
		t.Run(e.name, func(t *testing.T) {
			for _, before := range []int{0, 1, 2, 3, 4, 7, 50, 57, 100} {
				data := []byte(strings.Repeat("#", before) + longKey + "\nmore bytes after the key")
				in := e.enc(data)
				got := r.String(in)
				if !strings.Contains(got, Mask) {
					t.Fatalf("%d bytes before the key: not redacted:\n%s", before, got)
				}
				joined := strings.NewReplacer("\r", "", "\n", "", `\n`, "", " ", "").Replace(got)
				for _, part := range strings.Split(joined, Mask) {
					for _, f := range forms {
						if holdsPart(part, f, MinLen) {
							t.Fatalf("%d bytes before the key: %d characters of its form %q left:\n%s", before, longestPart(part, f), f, got)
						}
					}
				}
			}
		})
	}
}

func TestWrappedOutputWithoutTheKeyIsLeftAlone(t *testing.T) {
	r := New(longKey)
	for _, e := range encoders {
		in := e.enc([]byte(strings.Repeat("ordinary bytes, no key in them; ", 8)))
		if got := r.String(in); got != in {
			t.Errorf("%s: changed:\n%s", e.name, got)
		}
	}
	prose := "the quick brown fox jumps over the lazy dog\nand again and again\n"
	if got := r.String(prose); got != prose {
		t.Errorf("prose changed: %q", got)
	}
}

func TestAMaskedStreamKeepsItsLines(t *testing.T) {
	r := New(longKey)
	in := wrapLines(base64.StdEncoding.EncodeToString([]byte("0123456789"+longKey+"0123456789")), 76, "\n")
	got := r.String(in)
	if strings.Count(got, "\n") != strings.Count(in, "\n") {
		t.Errorf("lines changed:\n%s\n→\n%s", in, got)
	}
}
