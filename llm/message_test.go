package llm_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/llm"
)

func TestMessage(t *testing.T) {
	m := llm.Message{Role: llm.Assistant, Content: []llm.Block{
		llm.Text("a"),
		llm.ToolUse("t1", "read_file", []byte(`{"path":"x"}`)),
		llm.Text("b"),
		llm.ToolUse("t2", "list_dir", []byte(`{}`)),
	}}
	t.Run("Text joins the text blocks only", func(t *testing.T) {
		if got := m.Text(); got != "ab" {
			t.Errorf("Text = %q", got)
		}
	})
	t.Run("ToolUses keeps the calls in order", func(t *testing.T) {
		var names []string
		for _, b := range m.ToolUses() {
			names = append(names, b.Name)
		}
		if diff := cmp.Diff([]string{"read_file", "list_dir"}, names); diff != "" {
			t.Error(diff)
		}
	})
	t.Run("Usage adds up", func(t *testing.T) {
		u := llm.Usage{InputTokens: 3, OutputTokens: 4}.Add(llm.Usage{InputTokens: 10, OutputTokens: 20})
		if u != (llm.Usage{InputTokens: 13, OutputTokens: 24}) || u.Total() != 37 {
			t.Errorf("usage = %+v", u)
		}
	})
}
