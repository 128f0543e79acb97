package memory

import (
	"strconv"
	"strings"
)

// BriefLimit is how many notes an attempt is given at its start; recall
// finds the others.
const BriefLimit = 20

// Brief is what an attempt is told at its start about the attempts
// before it: the latest limit notes and failure reasons, oldest first,
// for its system prompt (where the judge never sees them: the judge
// grades the work, not its history). No notes, no brief.
func Brief(notes []Note, limit int) string {
	if len(notes) == 0 || limit <= 0 {
		return ""
	}
	shown := notes[max(0, len(notes)-limit):]
	var b strings.Builder
	b.WriteString("\n\n## Earlier attempts at this task\n\n")
	b.WriteString("This task was attempted before. Why those attempts failed, and the notes they kept, oldest first")
	if len(shown) < len(notes) {
		b.WriteString(" (the latest " + strconv.Itoa(len(shown)) + " of " + strconv.Itoa(len(notes)) + "; recall finds the others)")
	}
	b.WriteString(":\n\n")
	for _, n := range shown {
		text := n.Text
		if r := []rune(text); len(r) > MaxNote {
			text = string(r[:MaxNote]) + "…"
		}
		n.Text = text
		b.WriteString(line(n))
		b.WriteByte('\n')
	}
	b.WriteString("\nDo not repeat what failed. Keep what a later attempt should know with remember.\n")
	return b.String()
}
