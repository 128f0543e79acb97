package journal

import "unicode/utf8"

// A path is any bytes but NUL and '/', and encoding/json replaces bytes
// that are not UTF-8 with U+FFFD: a journal that wrote such a name as a
// JSON string would read back another name, and its rollback would miss
// the real one. So a path, a workspace or a symlink's target that is not
// valid UTF-8 is written in a *_bytes field (base64, exact) instead, and
// read back from there.

// packNames moves r's names that JSON would mangle into their bytes
// fields, before r is encoded.
func (r *record) packNames() {
	if !utf8.ValidString(r.Path) {
		r.PathBytes, r.Path = []byte(r.Path), ""
	}
	if !utf8.ValidString(r.Root) {
		r.RootBytes, r.Root = []byte(r.Root), ""
	}
	if r.State != nil && !utf8.ValidString(r.State.Target) {
		st := *r.State
		st.TargetBytes, st.Target = []byte(st.Target), ""
		r.State = &st
	}
}

// unpackNames puts the names packNames moved back, after r is decoded.
func (r *record) unpackNames() {
	if r.PathBytes != nil {
		r.Path, r.PathBytes = string(r.PathBytes), nil
	}
	if r.RootBytes != nil {
		r.Root, r.RootBytes = string(r.RootBytes), nil
	}
	if r.State != nil && r.State.TargetBytes != nil {
		r.State.Target, r.State.TargetBytes = string(r.State.TargetBytes), nil
	}
}

// packConflict does the same for a conflict kept in a rollback's
// decision.
func packConflict(path, reason string) conflictJSON {
	if !utf8.ValidString(path) {
		return conflictJSON{PathBytes: []byte(path), Reason: reason}
	}
	return conflictJSON{Path: path, Reason: reason}
}

func (c conflictJSON) path() string {
	if c.PathBytes != nil {
		return string(c.PathBytes)
	}
	return c.Path
}
