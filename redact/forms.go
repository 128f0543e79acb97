package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html"
	"net/url"
	"strings"
)

// variants returns s in the forms it takes on the way out: as it is,
// escaped inside a JSON string (with and without HTML escaping),
// percent-encoded, escaped in HTML (the report's page), and encoded
// (see encoded).
func variants(s string) []string {
	out := []string{s}
	if b, err := json.Marshal(s); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		j := strings.TrimSuffix(b.String(), "\n")
		out = append(out, j[1:len(j)-1])
	}
	out = append(out, url.QueryEscape(s), url.PathEscape(s), html.EscapeString(s))
	return append(out, encoded(s)...)
}

// encoded returns the forms s takes inside base64, base32 and hex
// output, where a command that read a key may have put it (`base64 <
// key`, an Authorization: Basic header, `openssl base64`, `base32`, `xxd
// -p`). Base64 turns 3 bytes into 4 characters, so s inside a longer
// stream is spelt one of three ways, by its offset modulo 3: for each,
// the run of characters that s's bytes alone decide (the first and last
// may mix in a neighbour's bits and are left), in the standard and the
// URL alphabet. Base32 turns 5 bytes into 8 characters: five ways. Hex
// in lower and upper case. A run shorter than MinLen is left out.
//
// Line breaks are not in these forms: a wrapped stream is matched with
// its line breaks taken out (see streams), whatever its width and
// wherever in it s begins.
func encoded(s string) []string {
	var out []string
	for k := range 3 {
		if run, ok := phase(base64.StdEncoding.EncodeToString(append(make([]byte, k), s...)), k, len(s), 6); ok {
			out = append(out, run, strings.NewReplacer("+", "-", "/", "_").Replace(run))
		}
	}
	for k := range 5 {
		if run, ok := phase(base32.StdEncoding.EncodeToString(append(make([]byte, k), s...)), k, len(s), 5); ok {
			out = append(out, run)
		}
	}
	h := hex.EncodeToString([]byte(s))
	return append(out, h, strings.ToUpper(h))
}

// phase returns the characters of enc, the encoding of k bytes and then
// n bytes of a secret at bits characters, that the secret's bytes alone
// decide.
func phase(enc string, k, n, bits int) (string, bool) {
	from, to := (8*k+bits-1)/bits, 8*(k+n)/bits
	if to-from < MinLen {
		return "", false
	}
	return enc[from:to], true
}
