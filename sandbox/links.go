package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
)

// linkTree counts, for every folder of the workspace, its regular files
// and those of them with more than one hard link, so that a folder whose
// files are all linked (a package pnpm or uv linked from its store) is
// bound read-only as one mount rather than file by file.
type linkTree struct {
	ws            string
	total, linked map[string]int
	files         []string // the linked files
}

func newLinkTree(ws string) *linkTree {
	return &linkTree{ws: ws, total: map[string]int{}, linked: map[string]int{}}
}

// file counts the regular file p.
func (t *linkTree) file(p string, linked bool) {
	for d := filepath.Dir(p); d != t.ws && under(d, t.ws); d = filepath.Dir(d) {
		t.total[d]++
		if linked {
			t.linked[d]++
		}
	}
	if linked {
		t.files = append(t.files, p)
	}
}

// cover returns the paths to bind read-only so that every linked file is
// read-only: each file's outermost folder whose regular files are all
// linked, else the file itself. When that takes more than max mounts,
// the paths are cut to fewer components (a folder that holds linked and
// other files then is read-only as a whole: more than needed, never
// less), down to the workspace's top-level entries.
func (t *linkTree) cover(max int) []string {
	var out []string
	for _, f := range t.files {
		top := f
		for d := filepath.Dir(f); d != t.ws && under(d, t.ws) && t.total[d] == t.linked[d]; d = filepath.Dir(d) {
			top = d
		}
		out = append(out, top)
	}
	out = outermost(out)
	for depth := maxDepth(t.ws, out) - 1; len(out) > max && depth >= 1; depth-- {
		cut := make([]string, len(out))
		for i, p := range out {
			cut[i] = truncate(t.ws, p, depth)
		}
		out = outermost(cut)
	}
	return out
}

// outermost sorts paths and drops those inside another of them.
func outermost(paths []string) []string {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var out []string
	for _, p := range paths {
		if len(out) > 0 && under(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func depthOf(ws, p string) int {
	rel, err := filepath.Rel(ws, p)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

func maxDepth(ws string, paths []string) int {
	m := 0
	for _, p := range paths {
		m = max(m, depthOf(ws, p))
	}
	return m
}

// truncate keeps the first depth components of p below ws.
func truncate(ws, p string, depth int) string {
	rel, err := filepath.Rel(ws, p)
	if err != nil {
		return p
	}
	parts := strings.Split(rel, string(filepath.Separator))
	if len(parts) > depth {
		parts = parts[:depth]
	}
	return filepath.Join(append([]string{ws}, parts...)...)
}
