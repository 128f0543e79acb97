// Package terminal makes text that nightshift did not write safe to show
// on a terminal.
//
// Much of what nightshift prints comes from elsewhere: a command's output
// in a verify line, a task's title in `nightshift task list`, a file's
// name in recover's messages, the model's reason in a run's closing
// lines. A terminal acts on some characters instead of showing them: ESC
// sequences clear the screen or move the cursor, a carriage return goes
// back over the line, a bidirectional override reverses what follows. A
// worker that controls that text could make a failed run read "all
// checks passed". Everything nightshift writes to a terminal goes through
// one escaping function, which shows those characters escaped (\x1b,
// \r, \u202e) instead:
//
//   - Escape, for a line's field: everything escaped, line breaks and
//     tabs included, so that a title or a reason stays on its line and
//     in its column;
//   - Lines and Writer, for text whose lines are its own (a preview, a
//     report): line feeds and tabs kept, the rest escaped.
//
// JSON outputs (--events, --json) are data, not text for a terminal:
// they are written as they are.
//
//	fmt.Fprintf(w, "task %d %s\n", id, terminal.Escape(title))
//	stderr = terminal.Writer(os.Stderr)
package terminal
