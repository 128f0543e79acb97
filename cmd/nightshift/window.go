package main

import (
	"fmt"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// windowField is the start line's window field when the run knows its
// model's context window before it starts: `window=200000 (model
// table)`, `window=512 (given)` for --context-window or a task file's
// context_window. A window learnt from the server is said by the
// lifecycle, which asks: `window=512 (server)`.
func windowField(spec *taskfile.Spec, worker *built, table *models.Table) []agent.StartField {
	switch {
	case spec.ContextWindow > 0:
		return []agent.StartField{{Key: "window", Value: fmt.Sprintf("%d (given)", spec.ContextWindow)}}
	case tableWindow(table, worker) > 0:
		return []agent.StartField{{Key: "window", Value: fmt.Sprintf("%d (model table)", tableWindow(table, worker))}}
	}
	return nil
}
