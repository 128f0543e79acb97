package journal

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/nightshift-dev/nightshift/internal/diff"
)

// The patch shows a file's content on either side only up to
// patchFileMax bytes, and the whole patch holds content only up to
// patchMax: past them a file is named with its sizes, not read, so a run
// that left a 1 TiB file (or 50,000 files) costs the record a line each.
const (
	patchFileMax = 1 << 20
	patchMax     = 32 << 20
)

// Patch returns what the run attempted, as a git-style unified diff of
// every path it changed (its prior state against the workspace now), for
// the run's record. Call it before Rollback. Folders do not appear, as in
// git; a symlink shows as its target; binary content is named, not shown,
// and so is a file past 1 MiB, or any past the first 32 MiB of content.
func (j *Journal) Patch() (string, error) { return j.PatchContext(context.Background()) }

// PatchContext is Patch, stopped when ctx is done.
func (j *Journal) PatchContext(ctx context.Context) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return "", ErrClosed
	}
	j.lookOwn()
	if err := adoptNew(ctx, j.root, j.m, j.skipped); err != nil {
		return "", err
	}
	var out strings.Builder
	v := newView(ctx, j.root, j.cache)
	defer v.close()
	for _, p := range j.m.paths() {
		prior := j.m.prior[p]
		cur, err := v.stat(p, nil, nil)
		if err != nil {
			return "", fmt.Errorf("journal: patch %s: %w", p, err)
		}
		if cur.same(prior) {
			continue
		}
		if shown := out.Len() < patchMax; !shown || tooBig(prior) || tooBig(cur) {
			writeFilePatch(&out, filepath.ToSlash(p), prior, cur, nil, nil, true)
			continue
		}
		old, err := j.content(v, p, prior, false)
		if err != nil {
			return "", err
		}
		now, err := j.content(v, p, cur, true)
		if err != nil {
			return "", err
		}
		writeFilePatch(&out, filepath.ToSlash(p), prior, cur, old, now, false)
	}
	return out.String(), nil
}

// tooBig reports whether a state's content is not shown in a patch.
func tooBig(st state) bool { return st.Kind == file && (st.Size > patchFileMax || isZ1(st.Hash)) }

// content returns what a diff shows of p in state st: a file's bytes (from
// the workspace when live, else from the saved blob), a symlink's target.
func (j *Journal) content(v *view, p string, st state, live bool) ([]byte, error) {
	switch st.Kind {
	case file:
		var r io.ReadCloser
		var err error
		if live {
			var d *os.Root
			if d, err = v.cur.dir(filepath.Dir(p)); err == nil && d != nil {
				r, err = d.OpenFile(filepath.Base(p), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
			}
		} else {
			r, err = openBlob(j.stepsDir(), st)
		}
		var b []byte
		if err == nil && r != nil {
			b, err = io.ReadAll(io.LimitReader(r, patchFileMax+1))
			r.Close()
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

func writeFilePatch(out *strings.Builder, p string, prior, cur state, old, now []byte, unshown bool) {
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
	if unshown {
		fmt.Fprintf(out, "Files %s and %s differ (%d and %d bytes, not shown)\n", oldName, newName, prior.Size, cur.Size)
		return
	}
	if bytes.Equal(old, now) {
		return
	}
	if isBinary(old) || isBinary(now) {
		fmt.Fprintf(out, "Binary files %s and %s differ\n", oldName, newName)
		return
	}
	out.WriteString(diff.Unified(oldName, newName, old, now))
}

// isBinary guesses, as git does, that content with a NUL byte in its first
// 8000 bytes is not text.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}
