// Package redact keeps credentials out of everything nightshift writes.
//
// A Redactor holds the values of the credentials a run holds (API keys
// from the environment or from a pipeline's api_key_env, the passwords of
// database URLs such as NIGHTSHIFT_DB or --db, and of any URL with
// credentials on the command line) and replaces each one, wherever it
// appears, by [redacted]. One Redactor is made per process and used at
// every boundary a secret could cross: tool results before the model
// reads them, events, run records, the audit log, the answer on stdout,
// the report and error messages. Values shorter than MinLen are left
// alone: replacing "abc" everywhere would garble more than it protects.
//
// A value is also found in the forms it takes on the way out: escaped in
// JSON and HTML, percent-encoded in a URL, and in base64 (standard and
// URL alphabets), base32 and hex, at any offset in a longer stream, and
// wrapped into lines at any width (`base64`, `openssl base64`, `xxd -p`,
// `xxd`), where a command that read it may have put it.
//
// And it is found in part. Much of what nightshift writes is cut to a
// length before it reaches the redactor (an event's tool input, the
// audit log's summary, a command's output tail, an error body): any
// FragmentLen characters of a secret are masked wherever they are, and
// its first or last MinLen characters where a text was cut (… or ...)
// or a line ends, so that a cut leaves fewer than MinLen of them.
//
//	r := redact.FromEnv(os.Environ(), "MY_KEY_ENV")
//	r.Learn(os.Args[1:]...)
//	fmt.Fprintln(stdout, r.String(answer))
//	events := r.Sink(event.NewJSON(file))
package redact
