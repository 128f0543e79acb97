// Package tool defines what a tool is to nightshift: a specification the
// model reads, a side-effect class the gate and the retry rules read, and a
// Run method whose failures are data (a Result with IsError), never Go
// errors that unwind the loop. A Set holds the tools of a run, validates
// each call's input against the tool's JSON Schema and answers an invented
// tool name with the list of tools that exist.
//
// Func makes a tool of a plain Go function, its input schema derived from
// the function's input struct:
//
//	type lookupIn struct {
//		Word string `json:"word" jsonschema:"the word to look up"`
//	}
//	lookup := tool.Func("lookup", "Look a word up in the glossary.", tool.Read,
//		func(ctx context.Context, in lookupIn) (string, error) { return glossary[in.Word], nil })
package tool
