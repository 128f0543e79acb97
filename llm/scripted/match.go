package scripted

import (
	"strings"

	"github.com/nightshift-dev/nightshift/llm"
)

// texts lazily builds the texts a Match searches, once per request, since
// several scripts and cases may look at the same request.
type texts struct {
	req       *llm.Request
	all, last *string
}

func (t *texts) get(in string) string {
	switch in {
	case "system":
		return t.req.System
	case "last":
		if t.last == nil {
			s := lastUserText(t.req)
			t.last = &s
		}
		return *t.last
	default:
		if t.all == nil {
			s := allText(t.req)
			t.all = &s
		}
		return *t.all
	}
}

// matches reports whether every part of m holds; a nil Match always holds.
func (m *Match) matches(t *texts) bool {
	if m == nil {
		return true
	}
	s := t.get(m.In)
	for _, c := range m.Contains {
		if !strings.Contains(s, c) {
			return false
		}
	}
	for _, c := range m.NotContains {
		if strings.Contains(s, c) {
			return false
		}
	}
	return m.re == nil || m.re.MatchString(s)
}

// allText is the system prompt and every message's searchable text, one
// piece per line.
func allText(req *llm.Request) string {
	var b strings.Builder
	b.WriteString(req.System)
	for _, m := range req.Messages {
		writeMessageText(&b, m)
	}
	return b.String()
}

// lastUserText is the searchable text of the last user message: what the
// harness just said (a task, feedback, or tool results).
func lastUserText(req *llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.User {
			var b strings.Builder
			writeMessageText(&b, req.Messages[i])
			return b.String()
		}
	}
	return ""
}

func writeMessageText(b *strings.Builder, m llm.Message) {
	for _, bl := range m.Content {
		switch bl.Type {
		case llm.TextBlock, llm.ToolResultBlock:
			b.WriteByte('\n')
			b.WriteString(bl.Text)
		case llm.ToolUseBlock:
			b.WriteByte('\n')
			b.WriteString(bl.Name)
			b.WriteByte(' ')
			b.Write(bl.Input)
		}
	}
}

// position is the request's place in its conversation: the number of
// assistant messages it already holds. Turn N answers position N.
func position(req *llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == llm.Assistant {
			n++
		}
	}
	return n
}
