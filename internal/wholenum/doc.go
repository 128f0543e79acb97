// Package wholenum finds a number with a fraction given in YAML for a
// setting that holds an integer. go.yaml.in/yaml/v3 decodes such a number
// by dropping its fraction, without an error: `max_steps: 1.5` read as 1
// and `context_window: 0.5` as 0 (no compaction at all). Task files,
// pipelines and model tables are checked with it after they decode, so
// that the mistake is said, with its line, instead of run.
package wholenum
