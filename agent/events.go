package agent

import (
	"strings"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

func (r *run) emit(typ, detail string, data map[string]any) {
	e := event.Event{
		TS:     r.cfg.Clock.Now(),
		Run:    r.cfg.RunID,
		Step:   r.res.Steps,
		Type:   typ,
		Detail: detail,
		Data:   data,
	}
	r.cfg.Events.Emit(e)
	if r.cfg.Observer != nil {
		r.cfg.Observer.Event(r.inner, e)
	}
}

// turnEvent emits `[turn · tool_use=read_file,write_file]` or
// `[turn · end_turn]`.
func (r *run) turnEvent(resp *llm.Response) {
	var names []string
	for _, b := range resp.Content {
		if b.Type == llm.ToolUseBlock {
			names = append(names, b.Name)
		}
	}
	detail := string(resp.StopReason)
	if len(names) > 0 {
		detail = string(resp.StopReason) + "=" + strings.Join(names, ",")
	}
	if names == nil {
		names = []string{}
	}
	r.emit("turn", detail, map[string]any{
		"stop_reason":   string(resp.StopReason),
		"tools":         names,
		"input_tokens":  resp.Usage.InputTokens,
		"output_tokens": resp.Usage.OutputTokens,
	})
}
