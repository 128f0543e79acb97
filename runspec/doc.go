// Package runspec is the one declaration of a run's configuration: what
// model answers, its limits, how its result is verified, what the gate
// lets through, how its commands are confined, how a long run is kept
// within its window, and what it plugs into. Flags, task files, batch
// task lines, every role of a pipeline file and checkpoints decode into a
// Spec; Validate is the one place a bad value is named; JSON is the form a
// checkpoint keeps.
//
// One table (Table) says, for each field of a Spec, its flag, its
// task-file key, its pipeline-role key, its default and its doc line. The
// front ends (cmd/nightshift's flags, package taskfile, package night's
// pipeline) and the docs (README's flag table, the key tables of the task
// files and of docs/night.md) are checked against it by tests, so that a
// field cannot be added to one and forgotten in another.
//
// Zero means the default everywhere: a Spec{} is a valid run with every
// default. Where zero is itself a choice a person can make (no retries),
// the field is a pointer, or the table says which other value means
// "none" (-1).
//
//	spec := runspec.Spec{}
//	spec.MaxSteps = 12
//	spec.Checks = []string{"exists:docs/install.md"}
//	if err := spec.Validate(); err != nil {
//		// err names the field as the flag (--max-steps) and as the key
//		// (max_steps); a front end that read a file adds its file and line
//		// (Error.In).
//	}
//
// # How to add an option
//
// A new run option touches these places, and the tests of this package
// and of cmd/nightshift fail until each is done:
//
//  1. A field in the group of Spec it belongs to (spec.go), with yaml and
//     json tags naming its key (yaml:"-" when it has no task-file key),
//     and a doc comment saying its default.
//  2. A row in Table (table.go): field, flag, key, pipeline-role key,
//     default, doc line. cmd/nightshift binds the flag to the field
//     (addRunFlags in run.go: the flags decode into a Spec, with the
//     row's doc line); the task file and the pipeline role decode the key
//     through the tags of step 1; the checkpoint keeps it by its json
//     name.
//  3. Its check in Validate (validate.go), if it has a range; the error
//     is an *Error naming the field, which every front end turns into its
//     own words (the flag, or the key with its file and line).
//  4. The library's own Config field that acts on it (lifecycle.Config,
//     and agent.Config when the loop reads it), and one line in the
//     lifecycle's applySpec (lifecycle/spec.go) that hands it over: every
//     front end reaches the lifecycle through lifecycle.Config.Spec.
//  5. README's flag table, README's task-file key table and, when it has a
//     pipeline key, docs/night.md's role key table; a line in CHANGELOG.
//
// The per-reply tool-call cap (MaxCallsPerReply, --max-calls-per-reply,
// max_calls_per_reply) is in: runspec/spec.go, table.go, validate.go;
// cmd/nightshift/run.go (its flag); lifecycle/spec.go, config.go, run.go
// and subagent.go; agent/config.go and tools.go; night/pipeline.go (the
// list of keys only the builder takes) and verify.go (a comment); and
// the docs.
package runspec
