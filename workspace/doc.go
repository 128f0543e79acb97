// Package workspace is the folder an agent may touch.
//
// A Root confines every tool path to one directory with os.Root, so that
// "..", absolute paths and symlinks that lead out are refused and nothing
// outside is read or written. nightshift's own state (run records,
// journal, audit log) lives outside every workspace (package statedir);
// the folder .nightshift, where earlier versions kept it, still counts as
// outside for the tools: a path that names it, or reaches it through a
// symlink, is refused like one that leaves the workspace.
//
// Every change goes through the Root, which asks a guard first (the journal
// that makes rollback possible plugs in there), tells an observer after, and
// keeps the list of paths the run changed, which the verifier's judge reads.
// A write is staged in a file beside its target and renamed over it; the
// guard hears of the staged file too, so that a crash between the two
// leaves nothing the journal does not know about. What a command changed
// joins the list through AddChanged.
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
