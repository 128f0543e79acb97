// Package workspace is the folder an agent may touch.
//
// A Root confines every tool path to one directory with os.Root, so that
// "..", absolute paths and symlinks that lead out are refused and nothing
// outside is read or written. The state folder .nightshift (run records,
// journal, audit log) lives inside the directory but counts as outside for
// the tools: a path that names it, or reaches it through a symlink, is
// refused like one that leaves the workspace.
//
// Every change goes through the Root, which asks a guard first (the journal
// that makes rollback possible plugs in there), tells an observer after, and
// keeps the list of paths the run changed, which the verifier's judge reads.
//
//	r, err := workspace.Open(dir)
//	if err != nil {
//		return err
//	}
//	defer r.Close()
//	if err := r.WriteFile("docs/plan.md", []byte("# Plan\n"), 0o644); err != nil {
//		var pe *workspace.PathError
//		if errors.As(err, &pe) {
//			// hand pe.Error() back to the model as an is_error result
//		}
//	}
//	changed := r.Changed() // ["docs/plan.md"]
package workspace
