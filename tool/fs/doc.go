// Package fs provides the built-in file tools: read_file, list_dir,
// write_file and edit_file, with the names and inputs agent users know.
//
// Every path is relative to a workspace.Root, which refuses any path that
// leaves the workspace or reaches its state folder. Every failure (a
// missing file, a refused path, a permission error, an edit that does not
// match) comes back as a tool.Result with IsError set and a message the
// model can act on; none is a Go error. The writing tools are idempotent,
// so the agent loop may safely run a repeated call again: writing the same
// content reports "unchanged", and an edit whose result is already there
// reports "already applied". A file (or a content) past the tools' size
// limit (Config.MaxFileSize, 256 MiB by default) gets an error result and
// is never read: a write compares sizes first and then streams.
//
//	root, err := workspace.Open(dir)
//	if err != nil {
//		return err
//	}
//	set, err := tool.NewSet(fs.Tools(root)...)
//	if err != nil {
//		return err
//	}
//	res := set.Call(ctx, "read_file", json.RawMessage(`{"path":"README.md"}`))
package fs
