package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 25: the file tools' size limit is --max-file-size, task-file key
// max_file_size (default 256 MiB). Past it a write gets an error result
// naming the limit; a bad size is a usage error naming the flag and the
// key.
func TestMaxFileSizeLimitsTheFileTools(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	writeFiles(t, dir, map[string]string{
		"work/notes.txt": "notes\n",
		"s.yaml":         "turns:\n  - tool_calls: [{name: write_file, input: {path: big.txt, content: \"twenty bytes of text\"}}]\n  - text: Done.\n",
		"task.yaml":      "task: Write big.txt\nmax_file_size: 16\n",
	})
	for name, args := range map[string][]string{
		"the flag":          {"--max-file-size", "16", "Write big.txt"},
		"the task-file key": {"--task-file", filepath.Join(dir, "task.yaml")},
	} {
		t.Run(name, func(t *testing.T) {
			res := runCLI(t, append([]string{"run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge"}, args...)...)
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			if !strings.Contains(res.stderr, "write_file error: write_file: the content is 20 bytes, past the file tools' limit of 16 bytes") {
				t.Errorf("the write past the limit is not an error result naming it:\n%s", res.stderr)
			}
			if _, err := os.Stat(filepath.Join(work, "big.txt")); err == nil {
				t.Error("big.txt was written past the limit")
			}
		})
	}
	res := runCLI(t, "run", "--dir", work, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--no-judge", "--max-file-size", "12 parsecs", "Write big.txt")
	if res.code != 2 || !strings.Contains(res.stderr, "--max-file-size (task file: max_file_size)") {
		t.Errorf("a bad size: exit %d, want 2 naming the flag and the key\n%s", res.code, res.stderr)
	}
}
