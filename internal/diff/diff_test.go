package diff

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"equal texts give no diff", "a\nb\n", "a\nb\n", ""},
		{"a changed line is shown with its context",
			"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"a new file is all additions",
			"", "x\ny\n",
			"--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"a missing final newline is marked",
			"a\n", "a",
			"--- a\n+++ b\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"},
		{"changes far apart make two hunks",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n",
			"--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Unified("a", "b", []byte(tt.old), []byte(tt.new))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unified (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnifiedApplies checks, over random edits, that applying the diff to
// the old text gives the new text and that its hunk headers count right.
func TestUnifiedApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		old := randomText(r)
		new := mutate(r, old)
		d := Unified("a", "b", []byte(old), []byte(new))
		got, err := apply(old, d)
		if err != nil {
			t.Fatalf("case %d: %v\nold=%q\nnew=%q\ndiff:\n%s", n, err, old, new, d)
		}
		if got != new {
			t.Fatalf("case %d: applying the diff gave %q, want %q\ndiff:\n%s", n, got, new, d)
		}
	}
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(30) {
		b.WriteString(strconv.Itoa(r.IntN(8)))
		b.WriteByte('\n')
	}
	if r.IntN(4) == 0 {
		b.WriteString("tail")
	}
	return b.String()
}

func mutate(r *rand.Rand, text string) string {
	lines := splitLines([]byte(text))
	for range r.IntN(6) {
		switch i := r.IntN(len(lines) + 1); {
		case r.IntN(2) == 0 && i < len(lines):
			lines = append(lines[:i], lines[i+1:]...)
		default:
			lines = append(lines[:i], append([]string{fmt.Sprintf("new%d\n", r.IntN(5))}, lines[i:]...)...)
		}
	}
	return strings.Join(lines, "")
}

// apply applies a unified diff made by Unified to old.
func apply(old, d string) (string, error) {
	if d == "" {
		return old, nil
	}
	a := splitLines([]byte(old))
	var out []string
	next := 0 // the next line of a not yet copied
	lines := strings.SplitAfter(d, "\n")
	for i := 2; i < len(lines) && lines[i] != ""; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@") {
			start, err := hunkStart(l)
			if err != nil {
				return "", err
			}
			out = append(out, a[next:start]...)
			next = start
			continue
		}
		body := l[1:]
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\\ No newline") {
			body = strings.TrimSuffix(body, "\n")
			i++
		}
		switch l[0] {
		case ' ':
			if next >= len(a) || a[next] != body {
				return "", fmt.Errorf("context %q does not match line %d", body, next+1)
			}
			out = append(out, body)
			next++
		case '-':
			if next >= len(a) || a[next] != body {
				return "", fmt.Errorf("removed %q does not match line %d", body, next+1)
			}
			next++
		case '+':
			out = append(out, body)
		default:
			return "", fmt.Errorf("bad line %q", l)
		}
	}
	out = append(out, a[next:]...)
	return strings.Join(out, ""), nil
}

// hunkStart returns the 0-based index in the old text where a hunk with
// header l begins: "-S,N" starts at line S, or after line S when N is 0.
func hunkStart(l string) (int, error) {
	f := strings.Fields(l)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") {
		return 0, fmt.Errorf("bad hunk header %q", l)
	}
	s, n, hasN := strings.Cut(f[1][1:], ",")
	start, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("bad hunk header %q", l)
	}
	if hasN && n == "0" {
		return start, nil
	}
	return start - 1, nil
}
