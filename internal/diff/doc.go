// Package diff writes unified diffs of text, line by line, for the people
// who read what a run did: the gate's preview of an edit and the journal's
// patch of a rolled-back run.
package diff
