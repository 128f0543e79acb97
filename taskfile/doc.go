// Package taskfile reads task files: a task's text, its checks, the judge's
// rubric and the run's limits, kept in a YAML file so a task can be checked
// in, reviewed and rerun (`nightshift run --task-file task.yaml`), and lists
// of them for `nightshift batch`.
//
//	task: Extract the install steps from README.md into docs/install.md.
//	checks:
//	  - exists:docs/install.md
//	  - matches:docs/install.md:(?m)^5\.
//	rubric: All five steps, in order, each a single command.
//	max_steps: 12
package taskfile
