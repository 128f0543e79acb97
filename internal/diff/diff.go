package diff

import (
	"bytes"
	"fmt"
	"strings"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// maxEdits bounds the work of the line matcher (its memory grows with the
// square of the edit count). Past it, the changed middle of the two texts
// is shown as one removal and one addition: still correct, only coarser.
const maxEdits = 1000

// Unified returns the unified diff that turns old into new, with the
// header lines `--- oldName` and `+++ newName`. It returns "" when the two
// texts are equal.
func Unified(oldName, newName string, old, new []byte) string {
	if bytes.Equal(old, new) {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := lineOps(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	writeHunks(&out, a, b, ops)
	return out.String()
}

// splitLines cuts text into lines that keep their "\n"; the last line
// lacks it when the text does not end in one.
func splitLines(text []byte) []string {
	var lines []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, string(text))
			break
		}
		lines = append(lines, string(text[:i+1]))
		text = text[i+1:]
	}
	return lines
}

// op is one step of an edit script: keep a[i] (== b[j]), delete a[i], or
// insert b[j].
type op struct {
	kind byte // ' ', '-', '+'
	i, j int
}

// lineOps returns an edit script from a to b: the common prefix and
// suffix are kept, and the middle is matched by Myers' algorithm.
func lineOps(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for k := 0; k < pre; k++ {
		ops = append(ops, op{' ', k, k})
	}
	for _, o := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		ops = append(ops, op{o.kind, o.i + pre, o.j + pre})
	}
	for k := suf; k > 0; k-- {
		ops = append(ops, op{' ', len(a) - k, len(b) - k})
	}
	return ops
}

// myers finds a shortest edit script from a to b (Myers 1986, the greedy
// forward algorithm with a saved frontier per edit count for the walk
// back). Past maxEdits it gives up and replaces a with b wholesale.
func myers(a, b []string) []op {
	n, m := len(a), len(b)
	replace := func() []op {
		ops := make([]op, 0, n+m)
		for i := range n {
			ops = append(ops, op{'-', i, 0})
		}
		for j := range m {
			ops = append(ops, op{'+', n, j})
		}
		return ops
	}
	if n == 0 || m == 0 {
		return replace()
	}
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, off, n, m, d)
			}
		}
	}
	return replace()
}

// backtrack walks the saved frontiers from (n, m) back to (0, 0) and
// returns the edit script in forward order.
func backtrack(trace [][]int, off, n, m, d int) []op {
	var rev []op
	x, y := n, m
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, op{' ', x, y})
		}
		if x == prevX {
			y--
			rev = append(rev, op{'+', x, y})
		} else {
			x--
			rev = append(rev, op{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, op{' ', x, y})
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

// writeHunks writes the changes of ops in hunks with Context lines of
// context around them.
func writeHunks(out *strings.Builder, a, b []string, ops []op) {
	for start := 0; start < len(ops); {
		// Find the next change.
		for start < len(ops) && ops[start].kind == ' ' {
			start++
		}
		if start == len(ops) {
			return
		}
		first := max(start-Context, 0)
		// Extend the hunk while changes are within 2*Context lines.
		end := start
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*Context {
				end = min(end+Context, len(ops))
				break
			}
			end = run
		}
		writeHunk(out, a, b, ops[first:end])
		start = end
	}
}

func writeHunk(out *strings.Builder, a, b []string, ops []op) {
	var oldLen, newLen int
	for _, o := range ops {
		if o.kind != '+' {
			oldLen++
		}
		if o.kind != '-' {
			newLen++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", span(ops[0].i, oldLen), span(ops[0].j, newLen))
	for _, o := range ops {
		line := ""
		switch o.kind {
		case '+':
			line = b[o.j]
		default:
			line = a[o.i]
		}
		out.WriteByte(o.kind)
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// span formats a hunk range: the 1-based start line and the count, with
// the conventions of diff -u for empty and one-line ranges.
func span(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
