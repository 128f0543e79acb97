package agent

import (
	"strings"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
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
	data := map[string]any{"stop_reason": string(resp.StopReason), "tools": names}
	if m := r.modelOf(resp); m != "" {
		// The model of every step, named in the record: with a fallback,
		// not every step is the primary's.
		data["model"] = m
	}
	addUsage(data, resp.Usage, r.priceOf(resp.Usage))
	r.emit("turn", detail, data)
}

// addUsage adds the fields of a usage to an event (docs/events.md): the
// tokens, cache writes and reads included, and cost_usd only when the
// cost is known, since an unknown cost must never read as free.
func addUsage(data map[string]any, u llm.Usage, c models.Cost) {
	data["input_tokens"], data["output_tokens"] = u.InputTokens, u.OutputTokens
	data["cache_write_tokens"], data["cache_read_tokens"] = u.CacheWriteTokens, u.CacheReadTokens
	if usd, ok := c.USD(); ok {
		data["cost_usd"] = usd
	}
}
