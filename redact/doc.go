// Package redact keeps credentials out of everything nightshift writes.
//
// A Redactor holds the values of the credentials a run holds (API keys
// from the environment or from a pipeline's api_key_env, the passwords of
// database URLs such as NIGHTSHIFT_DB) and replaces each one, wherever it
// appears, by [redacted]. One Redactor is made per process and used at
// every boundary a secret could cross: tool results before the model
// reads them, events, run records, the audit log, the answer on stdout,
// the report and error messages. Values shorter than MinLen are left
// alone: replacing "abc" everywhere would garble more than it protects.
//
// A value is also found in the forms it takes on the way out: escaped in
// JSON and HTML, percent-encoded in a URL, and in base64 (at any offset
// in a longer stream, standard and URL alphabets, wrapped as base64 and
// openssl wrap it) and hex, where a command that read it may have put it.
//
//	r := redact.FromEnv(os.Environ(), "MY_KEY_ENV")
//	fmt.Fprintln(stdout, r.String(answer))
//	events := r.Sink(event.NewJSON(file))
package redact
