package claims

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/verify"
)

// BenchmarkClaims checks a 100 KB answer about a run that changed 1,000
// files: prose with figures that are not about files, and, every few
// hundred bytes, a claim about one of the files (its lines, its words,
// that it was written), a list of changed files, and a tests claim. The
// whole answer is read: it holds fewer claims than MaxClaims.
func BenchmarkClaims(b *testing.B) {
	dir := b.TempDir()
	var changed []string
	for i := range 1000 {
		p := fmt.Sprintf("pkg%02d/file%04d.md", i%40, i)
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(strings.Repeat("a line of the file\n", 10+i%30)), 0o644); err != nil {
			b.Fatal(err)
		}
		changed = append(changed, p)
	}
	prose := "The run retried a 429 three times and waited 2 seconds; the parser now handles 12 cases in under 50 ms, " +
		"and version 2.4.1 fixes issue #128 on line 42 of the old code. "
	var a strings.Builder
	for i := 0; a.Len() < 100<<10; i++ {
		a.WriteString(prose)
		if i%3 != 0 {
			continue
		}
		switch i / 3 % 4 {
		case 0:
			fmt.Fprintf(&a, "pkg%02d/file%04d.md has %d lines. ", (i*7%1000)%40, i*7%1000, 10+(i*7%1000)%30)
		case 1:
			fmt.Fprintf(&a, "Updated pkg%02d/file%04d.md with the new section. ", (i*3%1000)%40, i*3%1000)
		case 2:
			fmt.Fprintf(&a, "\n- `pkg%02d/file%04d.md`: rewrote the intro\n", (i*11%1000)%40, i*11%1000)
		case 3:
			a.WriteString("All tests pass. ")
		}
	}
	answer := a.String()
	in := verify.Input{Task: "Rewrite the docs.", Answer: answer, Dir: dir, Files: os.DirFS(dir), Changed: changed,
		Ran: []verify.Ran{{Tool: "run_command", Command: "go test ./...", OK: true, Status: "exit status 0"}}}
	check := New(Config{})
	b.SetBytes(int64(len(answer)))
	n := 0
	for b.Loop() {
		n = len(check.Claims(context.Background(), in))
	}
	if n >= DefaultMaxClaims {
		b.Fatalf("%d claims: the answer was not read to its end", n)
	}
	b.ReportMetric(float64(n), "claims/op")
}
