package workspace

import (
	"strings"
)

// gitVar is one variable of a git config file, as git reads it: the
// section and key lowercased, the subsection as written (it is case
// sensitive, except in the old [section.sub] form, which git lowercases).
type gitVar struct {
	section, sub, key string
	value             string
	// bare marks a key without "=", which git reads as the boolean true.
	bare bool
}

// parseGitConfig reads the variables of a git config file (git-config(1),
// "CONFIGURATION FILE"): sections [core], [remote "origin"] and the old
// [core.sub], keys that may follow a section header on its line, values
// with "quotes", \" \\ \n \t \b escapes, backslash-newline continuations,
// and # or ; comments outside quotes. What it cannot read (a broken
// header, a bad key) ends the parse, as git refuses the whole file: the
// variables before it are kept, so that a config that git would refuse
// still protects what it names.
func parseGitConfig(b []byte) []gitVar {
	p := configParser{s: string(b)}
	var out []gitVar
	var section, sub string
	for {
		p.skipSpaceAndNewlines()
		if p.eof() {
			return out
		}
		switch c := p.peek(); {
		case c == '#' || c == ';':
			p.skipLine()
			continue
		case c == '[':
			var ok bool
			section, sub, ok = p.header()
			if !ok {
				return out
			}
			continue
		case isKeyStart(c):
			key := p.key()
			if key == "" || section == "" {
				return out
			}
			p.skipBlanks()
			v := gitVar{section: section, sub: sub, key: strings.ToLower(key)}
			if p.eof() || p.peek() == '\n' || p.peek() == '#' || p.peek() == ';' {
				v.bare = true
				p.skipLine()
			} else if p.peek() == '=' {
				p.i++
				var ok bool
				if v.value, ok = p.value(); !ok {
					return out
				}
			} else {
				return out
			}
			out = append(out, v)
		default:
			return out
		}
	}
}

// configParser walks a config file byte by byte.
type configParser struct {
	s string
	i int
}

func (p *configParser) eof() bool  { return p.i >= len(p.s) }
func (p *configParser) peek() byte { return p.s[p.i] }

func (p *configParser) skipBlanks() {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t' || p.peek() == '\r') {
		p.i++
	}
}

func (p *configParser) skipSpaceAndNewlines() {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t' || p.peek() == '\r' || p.peek() == '\n') {
		p.i++
	}
	// A UTF-8 byte order mark at the very start, which git skips.
	if p.i == 0 && strings.HasPrefix(p.s, "\ufeff") {
		p.i = len("\ufeff")
		p.skipSpaceAndNewlines()
	}
}

func (p *configParser) skipLine() {
	if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
		p.i += j + 1
		return
	}
	p.i = len(p.s)
}

func isKeyStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isKeyByte(c byte) bool { return isKeyStart(c) || c >= '0' && c <= '9' || c == '-' }

// key reads a variable's name.
func (p *configParser) key() string {
	j := p.i
	for !p.eof() && isKeyByte(p.peek()) {
		p.i++
	}
	return p.s[j:p.i]
}

// header reads [section], [section "sub"] or [section.sub], and leaves
// the parser after the closing bracket (a key may follow on the line).
func (p *configParser) header() (section, sub string, ok bool) {
	p.i++ // [
	j := p.i
	for !p.eof() && (isKeyByte(p.peek()) || p.peek() == '.') {
		p.i++
	}
	name := strings.ToLower(p.s[j:p.i])
	if name == "" {
		return "", "", false
	}
	if !p.eof() && p.peek() == ']' {
		p.i++
		if dot := strings.IndexByte(name, '.'); dot >= 0 {
			// The old form: [section.sub], the sub lowercased.
			return name[:dot], name[dot+1:], true
		}
		return name, "", true
	}
	p.skipBlanks()
	if p.eof() || p.peek() != '"' || strings.Contains(name, ".") {
		return "", "", false
	}
	p.i++
	var b strings.Builder
	for {
		if p.eof() || p.peek() == '\n' {
			return "", "", false
		}
		c := p.peek()
		p.i++
		if c == '"' {
			break
		}
		if c == '\\' {
			if p.eof() || p.peek() == '\n' {
				return "", "", false
			}
			c = p.peek()
			p.i++
		}
		b.WriteByte(c)
	}
	if p.eof() || p.peek() != ']' {
		return "", "", false
	}
	p.i++
	return name, b.String(), true
}

// value reads a value up to the end of its line (continuations
// included), trimming unquoted blanks at both ends as git does.
func (p *configParser) value() (string, bool) {
	var b strings.Builder
	quoted := false
	// keep is the length of b up to its last byte that is not an
	// unquoted trailing blank.
	keep := 0
	started := false
	for !p.eof() {
		c := p.peek()
		p.i++
		switch {
		case c == '\n':
			if quoted {
				return "", false
			}
			return b.String()[:keep], true
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String()[:keep], true
		case c == '"':
			quoted = !quoted
			started = true
			keep = b.Len()
		case c == '\\':
			if p.eof() {
				return "", false
			}
			e := p.peek()
			p.i++
			switch e {
			case '\n':
				continue // a continuation
			case '\r':
				if !p.eof() && p.peek() == '\n' {
					p.i++
					continue
				}
				return "", false
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				// git removes the last byte written.
				if s := b.String(); len(s) > 0 {
					b.Reset()
					b.WriteString(s[:len(s)-1])
				}
			case '"', '\\':
				b.WriteByte(e)
			default:
				return "", false
			}
			started = true
			keep = b.Len()
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if started {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
			started = true
			keep = b.Len()
		}
	}
	if quoted {
		return "", false
	}
	return b.String()[:keep], true
}
