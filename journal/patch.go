package journal

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/diff"
)

// Patch returns what the run attempted, as a git-style unified diff of
// every path it changed (its prior state against the workspace now), for
// the run's record. Call it before Rollback. Folders do not appear, as in
// git; a symlink shows as its target; binary content is named, not shown.
func (j *Journal) Patch() (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return "", ErrClosed
	}
	if err := adoptNew(j.root, j.m, j.skipped); err != nil {
		return "", err
	}
	var out strings.Builder
	v := newView(j.root)
	for _, p := range j.m.paths() {
		prior := j.m.prior[p]
		cur, err := v.stat(p, nil)
		if err != nil {
			return "", fmt.Errorf("journal: patch %s: %w", p, err)
		}
		if cur.same(prior) {
			continue
		}
		old, err := j.content(p, prior, false)
		if err != nil {
			return "", err
		}
		now, err := j.content(p, cur, true)
		if err != nil {
			return "", err
		}
		writeFilePatch(&out, filepath.ToSlash(p), prior, cur, old, now)
	}
	return out.String(), nil
}

// content returns what a diff shows of p in state st: a file's bytes (from
// the workspace when live, else from the saved blob), a symlink's target.
func (j *Journal) content(p string, st state, live bool) ([]byte, error) {
	switch st.Kind {
	case file:
		var b []byte
		var err error
		if live {
			b, err = j.root.ReadFile(p)
		} else {
			var r io.ReadCloser
			if r, err = openBlob(j.stepsDir(), st); err == nil {
				b, err = io.ReadAll(r)
				r.Close()
			}
		}
		if err != nil {
			return nil, fmt.Errorf("journal: patch %s: %w", p, err)
		}
		return b, nil
	case symlink:
		return []byte(st.Target), nil
	}
	return nil, nil
}

// gitMode is the mode as a patch header writes it: 120000 for a symlink,
// 100 and the permission bits for a file (git itself knows only 100644
// and 100755; a person reading the record wants the exact bits).
func gitMode(st state) string {
	if st.Kind == symlink {
		return "120000"
	}
	return fmt.Sprintf("100%03o", st.Mode.Perm())
}

// hasDiffBody reports whether a state shows in a diff: folders and
// special files do not.
func hasDiffBody(st state) bool { return st.Kind == file || st.Kind == symlink }

func writeFilePatch(out *strings.Builder, p string, prior, cur state, old, now []byte) {
	if !hasDiffBody(prior) && !hasDiffBody(cur) {
		return
	}
	fmt.Fprintf(out, "diff --git a/%s b/%s\n", p, p)
	oldName, newName := "a/"+p, "b/"+p
	switch {
	case !hasDiffBody(prior):
		fmt.Fprintf(out, "new file mode %s\n", gitMode(cur))
		oldName = "/dev/null"
	case !hasDiffBody(cur):
		fmt.Fprintf(out, "deleted file mode %s\n", gitMode(prior))
		newName = "/dev/null"
	case prior.Kind != cur.Kind || prior.Mode != cur.Mode:
		fmt.Fprintf(out, "old mode %s\nnew mode %s\n", gitMode(prior), gitMode(cur))
	}
	if bytes.Equal(old, now) {
		return
	}
	if binary(old) || binary(now) {
		fmt.Fprintf(out, "Binary files %s and %s differ\n", oldName, newName)
		return
	}
	out.WriteString(diff.Unified(oldName, newName, old, now))
}

// binary guesses, as git does, that content with a NUL byte in its first
// 8000 bytes is not text.
func binary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}
