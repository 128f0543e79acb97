// Package gate decides, before any tool runs, whether it may: allow, ask
// a person, or deny (seed 000, section 6: "a gate before execution").
//
// A Policy decides by the tool's side-effect class and by its name; name
// rules beat class rules and later rules beat earlier ones. The default is
// read=allow,write=allow,danger=ask. Ask, with a person at a terminal,
// shows exactly what will happen (the path and size of a write, the diff
// of an edit, the command line) and waits for yes; with nobody to ask, ask
// is a deny, never a silent allow. A refusal goes back to the model as an
// error result that says who refused, so it can take another way. Every
// decision is appended to an audit log of JSON lines.
//
//	policy, err := gate.ParsePolicy("danger=ask", "run_command=deny")
//	audit, err := gate.OpenAudit(filepath.Join(wsState, statedir.AuditName)) // outside the workspace
//	g := gate.New(gate.Config{
//		Policy: policy,
//		Asker:  gate.Interactive(os.Stdin, os.Stderr), // nil without a terminal
//		Audit:  audit,
//	})
//	v, err := g.Check(ctx, gate.Action{Run: runID, Tool: call.Name, Class: t.Class(), Input: call.Input})
//	if err != nil { ... } // parked, canceled, or the audit log failed
//	if !v.Allowed() {
//		result = v.Result(call.Name) // an is_error result for the model
//	}
//
// An unattended night plugs in Parker as the Asker: a call that needs a
// person parks the task (a *ParkedError carrying the call) instead of
// being denied, and once a person approves it, the call's Key goes into
// the task's Approvals, which allow that same call when it comes again.
package gate
