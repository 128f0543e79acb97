package verify

import (
	"context"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

// BenchmarkWords counts a mixed Chinese and English text of about 64 KiB,
// the judge's whole file budget.
func BenchmarkWords(b *testing.B) {
	text := strings.Repeat(chinese(100)+" and some English words between them. ", 150)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Words(text)
	}
}

// BenchmarkJudgeRequest builds the judge's prompt over ten changed files
// that together overflow the 64 KiB budget.
func BenchmarkJudgeRequest(b *testing.B) {
	files := map[string]string{}
	var changed []string
	for i := range 10 {
		name := string(rune('a'+i)) + ".md"
		files[name] = strings.Repeat("line of text\n", 1000*(i+1)/2)
		changed = append(changed, name)
	}
	dir := b.TempDir()
	for name, content := range files {
		writeBench(b, dir, name, content)
	}
	j := &Judge{Model: llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: []llm.Block{llm.Text("PASS")}}, nil
	})}
	in := Input{Task: "write", Answer: "done", Dir: dir, Changed: changed}
	for b.Loop() {
		if _, _, err := j.Judge(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}
