package agent

import (
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm"
)

func TestKeepFrom(t *testing.T) {
	u := func(n int) llm.Message { return llm.UserText(strings.Repeat("u", n)) }
	a := func(n int) llm.Message {
		return llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text(strings.Repeat("a", n))}}
	}
	tests := []struct {
		name   string
		msgs   []llm.Message
		window int
		want   int
	}{
		{"only the task: nothing to drop", []llm.Message{u(10)}, 1000, 0},
		{"one step: nothing older to drop", []llm.Message{u(10), a(10), u(10)}, 1000, 0},
		{"the latest turns that fit a fifth of the window", []llm.Message{u(10), a(400), u(400), a(40), u(40), a(40), u(40)}, 1000, 3},
		{"the latest step is kept whatever its size", []llm.Message{u(10), a(40), u(40), a(4000), u(4000)}, 1000, 3},
		{"a compacted history whose kept step is still big is not summarised again", []llm.Message{u(4000), a(4000), u(4000)}, 1000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keepFrom(tt.msgs, tt.window); got != tt.want {
				t.Errorf("keepFrom = %d, want %d", got, tt.want)
			}
		})
	}
}
