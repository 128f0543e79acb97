package redact

import (
	"slices"
	"strings"
)

// FragmentLen is the length of the shortest part of a secret masked
// wherever it appears. Text is cut in many places before it is written
// (an event keeps 200 characters of a tool's input, a command's output
// its last 16 KiB, an error message its first 500 bytes) and a stream is
// wrapped into lines: a secret cut anywhere leaves fewer than
// FragmentLen of its characters beside the mask, and fewer than MinLen
// where the cut is marked or a line ends (see edges).
const FragmentLen = 12

// matcher finds the secrets' forms in a text: whole, in part, and across
// the line breaks of a wrapped stream.
type matcher struct {
	// exact are the forms shorter than FragmentLen, matched whole.
	exact []string
	// forms are the others; grams holds every part of them FragmentLen
	// long, by where it is. A form of a value redacted whole only (a
	// database URL, whose host is no secret) is matched only whole.
	forms []string
	whole []bool
	grams map[string][]ref
	// quads holds a hash of the first four bytes of every gram, a cheap
	// test before the map, on 32-shift bits: 64 bits a gram, so that a
	// run's few keys take a few KiB where the table was 128 KiB, written
	// all over (every process paid its 32 pages).
	quads []uint64
	shift uint32
	// heads and tails are the starts and ends of forms, MinLen to
	// FragmentLen-1 long: masked where a text is cut or a line ends.
	heads, tails map[string]bool
}

// ref is where a gram is: forms[form][off:off+FragmentLen].
type ref struct{ form, off int32 }

// span is a part of a text to mask, [a, b).
type span struct{ a, b int }

// newMatcher returns the matcher of the forms of parts (matched in part
// too) and of wholes (matched whole only), nil when there are none.
func newMatcher(parts, wholes []string) *matcher {
	m := &matcher{grams: map[string][]ref{}, heads: map[string]bool{}, tails: map[string]bool{}}
	seen := map[string]bool{}
	add := func(f string, whole bool) {
		if seen[f] {
			return
		}
		seen[f] = true
		if !whole {
			for n := MinLen; n < min(len(f), FragmentLen); n++ {
				m.heads[f[:n]], m.tails[f[len(f)-n:]] = true, true
			}
		}
		if len(f) < FragmentLen {
			m.exact = append(m.exact, f)
			return
		}
		i := int32(len(m.forms))
		m.forms, m.whole = append(m.forms, f), append(m.whole, whole)
		for off := 0; off+FragmentLen <= len(f); off++ {
			if whole && off > 0 {
				break // found whole or not at all: its first gram is enough
			}
			g := f[off : off+FragmentLen]
			m.grams[g] = append(m.grams[g], ref{i, int32(off)})
		}
	}
	// The parts first: a form both of a secret and of a whole value is
	// matched in part.
	for _, s := range parts {
		for _, f := range variants(s) {
			add(f, false)
		}
	}
	for _, s := range wholes {
		for _, f := range variants(s) {
			add(f, true)
		}
	}
	if len(m.exact) == 0 && len(m.forms) == 0 {
		return nil
	}
	bits := uint32(minQuadBits)
	for bits < maxQuadBits && 1<<bits < 64*len(m.grams) {
		bits++
	}
	m.shift = 32 - bits
	m.quads = make([]uint64, 1<<bits/64)
	for g := range m.grams {
		q := m.quad(g)
		m.quads[q/64] |= 1 << (q % 64)
	}
	// Longest first, so that a form that holds another is found whole.
	slices.SortStableFunc(m.exact, func(a, b string) int { return len(b) - len(a) })
	return m
}

// The quads' table is 2^minQuadBits to 2^maxQuadBits bits.
const (
	minQuadBits = 10
	maxQuadBits = 20
)

// quad hashes the first four bytes of s onto the table's bits.
func (m *matcher) quad(s string) uint32 {
	return (uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24) * 2654435761 >> m.shift
}

// redact returns t with every span of a secret replaced by Mask, line
// breaks kept.
func (m *matcher) redact(t string) string {
	if m == nil || t == "" {
		return t
	}
	spans := m.find(t, true, nil, nil)
	for _, st := range streams(t) {
		spans = st.find(m, spans)
	}
	if len(spans) == 0 {
		return t
	}
	return mask(t, merge(spans))
}

// find appends to out the spans of t that are secrets: the exact forms,
// parts of the forms FragmentLen long or longer, and starts and ends of
// forms at t's edges: t's own start and end, the places in at, and,
// when lines is true, where a line ends or a cut is marked.
func (m *matcher) find(t string, lines bool, at []int, out []span) []span {
	for _, f := range m.exact {
		for i := 0; ; {
			j := strings.Index(t[i:], f)
			if j < 0 {
				break
			}
			out = append(out, span{i + j, i + j + len(f)})
			i += j + len(f)
		}
	}
	if len(m.forms) > 0 {
		out = m.fragments(t, out)
	}
	if len(m.heads) > 0 {
		out = m.edges(t, lines, at, out)
	}
	return out
}

// fragments appends the longest part of a form found at each place in t
// where FragmentLen of its characters are.
func (m *matcher) fragments(t string, out []span) []span {
	for i := 0; i+FragmentLen <= len(t); {
		if q := m.quad(t[i:]); m.quads[q/64]&(1<<(q%64)) == 0 {
			i++
			continue
		}
		refs, ok := m.grams[t[i:i+FragmentLen]]
		if !ok {
			i++
			continue
		}
		best := span{i, i}
		for _, r := range refs {
			f, off := m.forms[r.form], int(r.off)
			a, b := i, i+FragmentLen
			for a > 0 && off-(i-a) > 0 && t[a-1] == f[off-(i-a)-1] {
				a--
			}
			for b < len(t) && off+(b-i) < len(f) && t[b] == f[off+(b-i)] {
				b++
			}
			if m.whole[r.form] && b-a < len(f) {
				continue
			}
			if b-a > best.b-best.a {
				best = span{a, b}
			}
		}
		if best.b == best.a {
			i++
			continue
		}
		out = append(out, best)
		// A part that begins inside this one and goes on past it still
		// has a gram past its end.
		i = max(i+1, best.b-FragmentLen+1)
	}
	return out
}

// cutMarks are what nightshift's cuts leave where text was taken out.
var cutMarks = []string{"…", "..."}

// edgeByte holds the bytes an edge begins with: a line break, an escaped
// one, a cut's mark.
var edgeByte = [256]bool{'\n': true, '\\': true, 0xe2: true, '.': true}

// edges appends the starts of forms that end an edge of t and the ends
// of forms that begin one.
func (m *matcher) edges(t string, lines bool, at []int, out []span) []span {
	end := func(p int) { // a form's start may end at p
		for n := min(FragmentLen-1, p); n >= MinLen; n-- {
			if m.heads[t[p-n:p]] {
				out = append(out, span{p - n, p})
				return
			}
		}
	}
	start := func(p int) { // a form's end may begin at p
		for n := min(FragmentLen-1, len(t)-p); n >= MinLen; n-- {
			if m.tails[t[p:p+n]] {
				out = append(out, span{p, p + n})
				return
			}
		}
	}
	start(0)
	end(len(t))
	for _, p := range at {
		end(p)
		start(p)
	}
	if !lines {
		return out
	}
	for i := 0; i < len(t); i++ {
		if !edgeByte[t[i]] {
			continue
		}
		switch {
		case t[i] == '\n':
			end(i)
			if i > 0 && t[i-1] == '\r' {
				end(i - 1)
			}
			start(i + 1)
		case t[i] == '\\' && i+1 < len(t) && t[i+1] == 'n': // a line break escaped in JSON
			end(i)
			start(i + 2)
		case t[i] == cutMarks[0][0] || t[i] == '.':
			for _, mark := range cutMarks {
				if strings.HasPrefix(t[i:], mark) {
					end(i)
					start(i + len(mark))
					i += len(mark) - 1
					break
				}
			}
		}
	}
	return out
}

// merge sorts spans and joins those that overlap or touch.
func merge(spans []span) []span {
	slices.SortFunc(spans, func(x, y span) int { return x.a - y.a })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.a <= last.b {
			last.b = max(last.b, s.b)
			continue
		}
		out = append(out, s)
	}
	return out
}

// mask replaces each span of t by Mask, once per line it covers: a
// secret found across the lines of a wrapped stream leaves the lines
// where they were.
func mask(t string, spans []span) string {
	var b strings.Builder
	b.Grow(len(t))
	last := 0
	for _, s := range spans {
		b.WriteString(t[last:s.a])
		for i, line := range strings.Split(t[s.a:s.b], "\n") {
			if i > 0 {
				b.WriteByte('\n')
			}
			if strings.TrimRight(line, "\r") != "" {
				b.WriteString(Mask)
			}
			if strings.HasSuffix(line, "\r") {
				b.WriteByte('\r')
			}
		}
		last = s.b
	}
	b.WriteString(t[last:])
	return b.String()
}
