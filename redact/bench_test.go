package redact

import (
	"strings"
	"testing"
)

// BenchmarkString redacts a command's output (16 KiB, the tail a
// command's result keeps) and a run's patch (1 MiB) that hold no secret,
// with the secrets of a typical run: two keys and a database URL.
func BenchmarkString(b *testing.B) {
	r := FromEnv([]string{
		"ANTHROPIC_API_KEY=sk-ant-api03-" + strings.Repeat("Zq9xW3vB7nK2", 8),
		"OPENAI_API_KEY=sk-proj-" + strings.Repeat("0aB1cD2eF3gH", 4),
		"NIGHTSHIFT_DB=postgres://night:s3cret-pass-word@db.example:5432/night",
	})
	line := "ok  \tgithub.com/example/project/pkg/thing\t0.123s\tcoverage: 81.2% of statements; see https://example.com/docs?page=2\n"
	for _, size := range []int{16 << 10, 1 << 20} {
		text := strings.Repeat(line, size/len(line))
		b.Run(strings.ReplaceAll(strings.TrimSpace(byteSize(size)), " ", ""), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r.String(text)
			}
		})
	}
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return "1MiB"
	}
	return "16KiB"
}

// BenchmarkFromEnv builds the redactor of a typical run's environment,
// as every nightshift process does at its start: its B/op is what the
// process holds for it (the quads' table is sized to the grams).
func BenchmarkFromEnv(b *testing.B) {
	env := []string{
		"ANTHROPIC_API_KEY=sk-ant-api03-" + strings.Repeat("Zq9xW3vB7nK2", 8),
		"OPENAI_API_KEY=sk-proj-" + strings.Repeat("0aB1cD2eF3gH", 4),
		"NIGHTSHIFT_DB=postgres://night:s3cret-pass-word@db.example:5432/night",
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/someone",
	}
	for b.Loop() {
		FromEnv(env)
	}
}
