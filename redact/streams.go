package redact

import (
	"slices"
	"strings"
)

// A stream is a run of base64, base32 or hex pieces broken by line
// breaks or spaces: `base64` wraps its output at 76 columns, `openssl
// base64` at 64, `xxd -p` at 60, `xxd` and `od` group hex digits with
// spaces, and a JSON string holds the breaks as \n. A secret encoded in
// the middle of one is split across its lines, so each stream is also
// matched with its breaks taken out.
type stream struct {
	pieces []span // where each piece is in the text
	offs   []int  // where each piece begins in joined
	joined string // the pieces without what is between them
	buf    []byte // joined, while the stream is read
}

// maxGap is the most bytes of spaces and line breaks between two pieces
// of one stream (hexdump -C puts two spaces and a column of text
// between its lines' halves; wider gaps are no wrapping).
const maxGap = 16

// streams returns the streams of t that have more than one piece.
func streams(t string) []stream {
	var out []stream
	var cur stream
	flush := func() {
		if len(cur.pieces) > 1 && len(cur.buf) >= MinLen {
			if cur.wrapped(t) {
				out = append(out, stream{pieces: slices.Clone(cur.pieces), offs: slices.Clone(cur.offs), joined: string(cur.buf)})
			} else {
				out = append(out, cur.folded(t)...)
			}
		}
		// Most streams are words of prose: their room is used again.
		cur.pieces, cur.offs, cur.buf = cur.pieces[:0], cur.offs[:0], cur.buf[:0]
	}
	for i := 0; i < len(t); {
		if !isPieceByte(t[i]) {
			i++
			continue
		}
		j := i
		for j < len(t) && isPieceByte(t[j]) {
			j++
		}
		cur.offs = append(cur.offs, len(cur.buf))
		cur.pieces = append(cur.pieces, span{i, j})
		cur.buf = append(cur.buf, t[i:j]...)
		// What follows: a gap of breaks, and then another piece, or the
		// stream ends.
		k := j
		for k < len(t) && k-j <= maxGap {
			switch {
			case t[k] == ' ' || t[k] == '\t' || t[k] == '\r' || t[k] == '\n':
				k++
				continue
			case t[k] == '\\' && k+1 < len(t) && strings.IndexByte("nrt", t[k+1]) >= 0:
				k += 2
				continue
			}
			break
		}
		if k == j || k-j > maxGap || k >= len(t) || !isPieceByte(t[k]) {
			flush()
		}
		i = k
	}
	flush()
	return out
}

// minLine is the shortest line of a wrapped stream: encoders wrap at 60
// columns or more (xxd -p), and words of prose are shorter.
const minLine = 16

// wrapped reports whether the stream's pieces look like an encoder's
// output: lines of minLine characters or more, each piece on a line of
// its own (the first and the last may be shorter: the stream may begin
// after a label and end short), or
// hex digits in groups (xxd, od, hexdump), four groups or more and most
// of its pieces (the rest are a dump's offsets and text column). A
// stream that is neither may still hold text folded at a fixed width
// (folded).
func (st stream) wrapped(t string) bool {
	long := true
	for i, p := range st.pieces {
		if i > 0 && i < len(st.pieces)-1 && p.b-p.a < minLine || i+1 < len(st.pieces) && !st.broken(t, i) {
			long = false
			break
		}
	}
	if long && (len(st.pieces) > 2 || st.pieces[0].b-st.pieces[0].a >= minLine || st.pieces[1].b-st.pieces[1].a >= minLine) {
		return true
	}
	groups := 0
	for _, p := range st.pieces {
		if isHexGroup(t[p.a:p.b]) {
			groups++
		}
	}
	return groups >= 4 && 2*groups >= len(st.pieces)
}

// folded returns the runs of the stream's pieces that are text folded
// at a fixed width (`fold -w 8`, `sed 's/..../&\n/g'`): lines as long as
// the one after the first, the first and the last no longer; enough of
// them that the width is no accident. Each is a stream of its own.
func (st stream) folded(t string) []stream {
	width := func(i int) int { return st.pieces[i].b - st.pieces[i].a }
	broken := func(i int) bool { return st.broken(t, i) }
	var out []stream
	for i := 0; i+1 < len(st.pieces); {
		w := width(i + 1)
		if width(i) > w || !broken(i) {
			i++
			continue
		}
		j := i + 1
		for j+1 < len(st.pieces) && width(j+1) == w && broken(j) {
			j++
		}
		if j+1 < len(st.pieces) && width(j+1) < w && broken(j) {
			j++
		}
		n := j - i + 1
		if w >= 8 && n >= 2 || w >= 4 && n >= 3 || n >= 8 {
			out = append(out, st.sub(i, j+1))
			i = j + 1
			continue
		}
		i++
	}
	return out
}

// broken reports whether a line break is between pieces i and i+1: an
// encoder's lines are lines, and words of prose or a path beside a
// number are not.
func (st stream) broken(t string, i int) bool {
	gap := t[st.pieces[i].b:st.pieces[i+1].a]
	return strings.Contains(gap, "\n") || strings.Contains(gap, `\n`)
}

// sub returns the stream of pieces i to j (not included), joined.
func (st stream) sub(i, j int) stream {
	from := st.offs[i]
	end := st.offs[j-1] + st.pieces[j-1].b - st.pieces[j-1].a
	offs := make([]int, j-i)
	for k := range offs {
		offs[k] = st.offs[i+k] - from
	}
	return stream{pieces: slices.Clone(st.pieces[i:j]), offs: offs, joined: string(st.buf[from:end])}
}

// isHexGroup reports whether s is a group of a hex dump: 2 to 8 hex
// digits, an even number.
func isHexGroup(s string) bool {
	if len(s) < 2 || len(s) > 8 || len(s)%2 != 0 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// isPieceByte reports whether c may be in base64 (either alphabet),
// base32 or hex.
func isPieceByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

// find appends the spans of the secrets m finds in the joined stream, as
// spans of the text.
func (st stream) find(m *matcher, out []span) []span {
	// Where one piece ends and the next begins is an edge: a line of
	// the stream, a group of a hex dump, the text column beside it.
	for _, s := range m.find(st.joined, false, st.offs[1:], nil) {
		out = append(out, span{st.at(s.a), st.at(s.b-1) + 1})
	}
	return out
}

// at returns where the joined stream's byte j is in the text.
func (st stream) at(j int) int {
	lo, hi := 0, len(st.offs)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if st.offs[mid] <= j {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return st.pieces[lo].a + j - st.offs[lo]
}
