// Package mcp gives a run the tools of Model Context Protocol servers,
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk): a
// server started as a command and spoken to over its stdin and stdout,
// or one reached at a URL over streamable HTTP.
//
// Each server's tools join the run's tool set named NAME__tool (mapped
// into [a-zA-Z0-9_-]{1,64}, the strictest provider's limit), with the
// input schemas the server gives. nightshift cannot know what a remote
// tool does, so every one of them has the class a person gave it
// (Server.Class for the whole server, Server.Classes per tool), danger by
// default: the gate decides on it, audits it, and the run's journal
// captures the workspace before it runs unless it is read-class. Its
// failures come back to the model as is_error results, and none is ever
// retried (tool.Opaque): a call that failed halfway may have done
// something.
//
// A stdio server does not inherit nightshift's environment, which holds
// its keys: it starts with Config.Env (by default the allow-listed
// variables of package sandbox, PATH, HOME, LANG, ...; a run gives the
// environment of its commands, --env's variables included) plus the
// variables its Server.Env names, the only way a credential reaches it,
// said in a warning (Config.Warn).
//
// Nothing a run could have written is started (issue 25): a stdio
// server's program is resolved to an absolute path when Open is called,
// before the run, and the server starts in an empty, read-only folder of
// its own outside the workspace (Config.StartDir), so that npx, python -m
// and their kin find nothing of the workspace's; its arguments spelt as
// relative paths (".", "./x") are made absolute from the workspace, and
// the workspace is its one MCP root. A server whose program, script,
// module or code-loading variable lies inside the workspace is refused
// (ErrInWorkspace) unless the person trusts it by name
// (Server.TrustWorkspace: trust_workspace: true under it in mcp:); such
// a server starts in the workspace.
// Where the run's sandbox is bwrap (Config.Sandbox), every stdio server
// runs in it, as the commands do, with the network and a cache folder of
// its own (Config.CacheDir).
//
// A server that cannot be started, or whose tools collide with another
// tool's name, keeps the run from starting (ErrConfig): nothing is sent to
// a model. A server that dies during the run is started again once; a
// call in flight when it died is not repeated, and once the second
// process dies too, its tools answer with an error saying so.
//
//	tb, err := mcp.Open(ctx, mcp.Config{Dir: "./project", Servers: []mcp.Server{
//		{Name: "fs", Command: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}, Class: tool.Write},
//		{Name: "issues", URL: "https://mcp.example.com/mcp", Class: tool.Read},
//	}})
//	if err != nil {
//		return err // a usage error: nothing ran
//	}
//	defer tb.Close()
//	set, err := tool.NewSet(append(fs.Tools(root), tb.Tools()...)...)
//
// lifecycle.Config.MCP does this for every run, so that `nightshift run`
// (--mcp), batch and the night's builder (mcp: in task files and
// pipelines) all have it.
package mcp
