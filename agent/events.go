package agent

import (
	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/llm"
)

// emit stamps e, made by one of package event's constructors, with the
// time, the run and the step, and sends it.
func (r *run) emit(e event.Event) {
	e.TS, e.Run, e.Step = r.cfg.Clock.Now(), r.cfg.RunID, r.res.Steps
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
	r.emit(event.NewTurn(event.TurnInfo{StopReason: resp.StopReason, Tools: names, Model: r.modelOf(resp), Usage: resp.Usage, Cost: r.priceOf(resp.Usage)}))
}
