package tool

// Opaque is a tool whose side effects nightshift cannot know, such as an
// MCP server's: its class is what a person said about it, for the gate,
// not something nightshift can check. None of its failures is ever
// retried (a Set never marks its results Transient, not even a timeout),
// and unless it is read-class the run's journal captures the workspace
// before it runs, as for a danger-class tool (see Captured).
type Opaque interface {
	Tool
	// Opaque marks the tool; it does nothing.
	Opaque()
}

// Captured reports whether the workspace must be captured before t runs,
// so that a rollback undoes what it changed outside the workspace's own
// writes: a danger-class tool (a command), or an opaque tool that is not
// read-class.
func Captured(t Tool) bool {
	if t.Class() == Danger {
		return true
	}
	_, opaque := t.(Opaque)
	return opaque && t.Class() != Read
}
