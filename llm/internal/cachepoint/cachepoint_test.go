package cachepoint

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
)

func TestRolling(t *testing.T) {
	u, a := llm.UserText("u"), llm.Message{Role: llm.Assistant, Content: []llm.Block{llm.Text("a")}}
	tests := []struct {
		name string
		msgs []llm.Message
		want []int
	}{
		{"a first call has no rolling breakpoint", []llm.Message{u}, nil},
		{"a one-shot prompt of several user turns has none", []llm.Message{u, u}, nil},
		{"after one step: where the first call ended and the latest", []llm.Message{u, a, u}, []int{0, 2}},
		{"after a continuation: the same rule", []llm.Message{u, a, u, a, u, a, u}, []int{4, 6}},
		{"a prompt that ends with the assistant's turn", []llm.Message{u, a}, []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rolling(tt.msgs)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(got)+1 > Max {
				t.Errorf("%d breakpoints with the head's", len(got)+1)
			}
		})
	}
}
