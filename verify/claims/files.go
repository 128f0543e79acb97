package claims

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	nsworkspace "github.com/nightshift-dev/nightshift/workspace"
)

// mention is a file name in a sentence.
type mention struct {
	start, end int // offsets in the sentence's text
	name       string
	// quoted is true for a name in backticks or quotes: a file for sure.
	quoted bool
	// dir is true for a name that ends in a slash: a folder.
	dir bool
	// bare is true for a name without an ending ("README"): a file only
	// if the workspace has it, else a word.
	bare bool
}

var (
	// pathRe finds a path-like word: segments of letters, digits, dots,
	// dashes and underscores, separated by slashes.
	bareRe = lazyregexp.New(`\b(?:Makefile|Dockerfile|README|LICENSE|CHANGELOG|Gemfile|Rakefile|Procfile|Justfile|Containerfile|Vagrantfile|NOTICE|AUTHORS|CODEOWNERS)\b`).
		Needs("Makefile", "Dockerfile", "README", "LICENSE", "CHANGELOG", "Gemfile", "Rakefile", "Procfile", "Justfile", "Containerfile", "Vagrantfile", "NOTICE", "AUTHORS", "CODEOWNERS")
	// quotedRe finds a name in backticks or quotes.
	quotedRe = lazyregexp.New("`([^`\\n]{1,200})`|\"([^\"\\n]{1,200})\"|“([^”\\n]{1,200})”|「([^」\\n]{1,200})」").Needs("`", `"`, "“", "「")
)

// isPathByte reports a byte a path-like word is made of.
func isPathByte(b byte) bool {
	return isLetterByte(b) || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.' || b == '/'
}

// pathWords returns the spans of the path-like words of text: runs of
// letters, digits, dots, dashes, underscores and slashes that hold a dot
// or a slash (a word without one is no path, but may be a bare name:
// bareRe).
func pathWords(text string) [][]int {
	var out [][]int
	for i := 0; i < len(text); {
		if !isPathByte(text[i]) {
			i++
			continue
		}
		j := i
		mark := false
		for j < len(text) && isPathByte(text[j]) {
			mark = mark || text[j] == '.' || text[j] == '/'
			j++
		}
		if mark {
			out = append(out, []int{i, j})
		}
		i = j
	}
	return out
}

// extensions are the file name endings read as files without quotes.
var extensions = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`md markdown mdx txt text rst adoc tex org csv tsv json jsonl ndjson yaml yml toml ini cfg conf
		env xml html htm css scss sass less js mjs cjs jsx ts tsx vue svelte go mod sum py pyi ipynb rb php java kt kts scala
		swift c h cc cpp cxx hpp hh cs rs zig dart lua pl pm r jl sh bash zsh fish ps1 bat sql graphql proto lock log out
		diff patch svg tf hcl nix gradle properties plist mk cmake srt vtt tmpl tpl j2 rtf epub pdf png jpg jpeg gif webp ico
		wasm bin dat db sqlite gz tgz zip tar`) {
		m[e] = true
	}
	return m
})

// bareNames are file names without an ending that read as files.
var bareNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"Makefile": true, "Dockerfile": true, "README": true, "LICENSE": true, "CHANGELOG": true, "Gemfile": true,
		"Rakefile": true, "Procfile": true, "Justfile": true, "Containerfile": true, "Vagrantfile": true, "NOTICE": true,
		"AUTHORS": true, "CODEOWNERS": true, "go.mod": true, ".gitignore": true, ".env": true, ".dockerignore": true,
	}
})

// techNames end like a script but name a technology: Node.js, Vue.js.
var techNames = lazyregexp.New(`^[A-Z][A-Za-z0-9]*\.(?:js|ts|io|NET|net)$`)

// findFiles returns the file names in text, in order.
func findFiles(text string) []mention {
	var out []mention
	taken := make([]bool, len(text)+1)
	for _, m := range quotedRe.FindAllStringSubmatchIndex(text, -1) {
		for g := 2; g < len(m); g += 2 {
			if m[g] < 0 {
				continue
			}
			inner := strings.TrimSpace(text[m[g]:m[g+1]])
			if n, ok := fileName(inner, true); ok {
				out = append(out, mention{start: m[0], end: m[1], name: n, quoted: true, dir: strings.HasSuffix(inner, "/")})
				for i := m[0]; i < m[1]; i++ {
					taken[i] = true
				}
			}
		}
	}
	found := pathWords(text)
	for _, m := range bareRe.FindAllStringIndex(text, -1) {
		if (m[0] == 0 || !strings.ContainsRune("./", rune(text[m[0]-1]))) && (m[1] == len(text) || !strings.ContainsRune("./", rune(text[m[1]]))) {
			found = append(found, m)
		}
	}
	for _, m := range found {
		if taken[m[0]] {
			continue
		}
		// Glued to a letter of another script or a word: "v1.2", "e.g".
		if m[0] > 0 && (text[m[0]-1] == '@' || text[m[0]-1] == ':' && m[0] > 1 && text[m[0]-2] == '/') {
			continue // an e-mail address or a URL
		}
		word := text[m[0]:m[1]]
		if strings.Contains(text[max(0, m[0]-8):m[0]], "://") || strings.HasPrefix(text[m[1]:], "://") {
			continue
		}
		trimmed := strings.TrimRight(word, ".")
		end := m[0] + len(trimmed)
		if n, ok := fileName(trimmed, false); ok {
			out = append(out, mention{start: m[0], end: end, name: n, dir: strings.HasSuffix(trimmed, "/"), bare: !strings.Contains(path.Base(n), ".")})
		}
	}
	sortMentions(out)
	return out
}

func sortMentions(ms []mention) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].start < ms[j-1].start; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// fileName cleans a candidate and reports whether it reads as a file
// name: quoted, or with a known ending, or a known bare name. A name with
// a space, a scheme or a leading slash is no workspace file.
func fileName(s string, quoted bool) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t<>|*?{}$\\,;()[]") || strings.Contains(s, "://") {
		return "", false
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") {
		return "", false
	}
	s = strings.TrimPrefix(s, "./")
	clean := path.Clean(strings.TrimSuffix(s, "/"))
	if clean == "." || strings.HasPrefix(clean, "../") || clean == ".." {
		return "", false
	}
	base := path.Base(clean)
	if bareNames()[base] {
		return clean, true
	}
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 {
		// No ending: a quoted name with a slash is a path ("`docs/`"),
		// and so is a word ending in one ("fixtures/").
		if quoted && strings.Contains(s, "/") || strings.HasSuffix(s, "/") && len(base) >= 3 && strings.Trim(base, "0123456789") != "" {
			return clean, true
		}
		return "", false
	}
	ext := strings.ToLower(base[dot+1:])
	if !extensions()[ext] {
		return "", false
	}
	if !quoted && !strings.Contains(clean, "/") && techNames.MatchString(base) {
		return "", false
	}
	// A version or a figure: "1.2.md" is fine, "3.5" never got here.
	return clean, true
}

// workspace is what the claims check knows of the run's files: the
// workspace's files and the paths the run changed.
type workspace struct {
	fsys    fs.FS
	changed map[string]bool
	// dirs holds every folder of a changed path, for claims about a
	// folder ("removed build/").
	dirs map[string]bool
	// byBase indexes the changed paths by their last part, for a claim
	// that names a file without its folder.
	byBase map[string][]string
	// all indexes every file of the workspace by its last part, made on
	// first need.
	all     map[string][]string
	walked  bool
	content map[string]fileContent
	stats   map[string]fileContent
}

type fileContent struct {
	data  []byte
	isDir bool
	err   error
}

func newWorkspace(fsys fs.FS, changed []string) *workspace {
	w := &workspace{fsys: fsys, changed: map[string]bool{}, dirs: map[string]bool{}, byBase: map[string][]string{}, content: map[string]fileContent{}, stats: map[string]fileContent{}}
	for _, p := range changed {
		p = path.Clean(strings.TrimPrefix(p, "./"))
		if w.changed[p] {
			continue
		}
		w.changed[p] = true
		w.byBase[path.Base(p)] = append(w.byBase[path.Base(p)], p)
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			w.dirs[d] = true
		}
	}
	return w
}

// maxWalk bounds the files looked at to find a name given without its
// folder.
const maxWalk = 20000

// resolve finds the workspace path a name means: the name itself if it
// exists or was changed, else the one changed path (or, failing that,
// the one file of the workspace) that ends with it. ok is false when none
// or several do.
func (w *workspace) resolve(name string) (string, bool) {
	if w.changed[name] || w.dirs[name] || w.exists(name) {
		return name, true
	}
	if p, ok := unique(w.byBase[path.Base(name)], name); ok {
		return p, true
	}
	if matches(w.byBase[path.Base(name)], name) > 1 {
		return "", false
	}
	w.walk()
	return unique(w.all[path.Base(name)], name)
}

// ambiguous reports whether several changed paths, or several files of
// the workspace, end with name.
func (w *workspace) ambiguous(name string) bool {
	if _, ok := unique(w.byBase[path.Base(name)], name); !ok && matches(w.byBase[path.Base(name)], name) > 1 {
		return true
	}
	w.walk()
	return matches(w.all[path.Base(name)], name) > 1
}

func matches(paths []string, name string) int {
	n := 0
	for _, p := range paths {
		if p == name || strings.HasSuffix(p, "/"+name) {
			n++
		}
	}
	return n
}

// unique returns the one path of paths that ends with name.
func unique(paths []string, name string) (string, bool) {
	found := ""
	for _, p := range paths {
		if p == name || strings.HasSuffix(p, "/"+name) {
			if found != "" {
				return "", false
			}
			found = p
		}
	}
	return found, found != ""
}

func (w *workspace) walk() {
	if w.walked || w.fsys == nil {
		return
	}
	w.walked = true
	w.all = map[string][]string{}
	n := 0
	fs.WalkDir(w.fsys, ".", func(p string, d fs.DirEntry, err error) error { //nolint:errcheck // a folder that cannot be read is left out
		if err != nil {
			return nil
		}
		if n++; n > maxWalk {
			return fs.SkipAll
		}
		if d.IsDir() {
			if p != "." && (d.Name() == ".git" || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		w.all[d.Name()] = append(w.all[d.Name()], p)
		return nil
	})
}

// maxClaimFileBytes is the largest file a claim is checked against, as
// verify.MaxRuleFileBytes for the rules.
const maxClaimFileBytes = 256 << 20

// read returns a workspace file's content, read once per check.
func (w *workspace) read(p string) fileContent {
	if c, ok := w.content[p]; ok {
		return c
	}
	c := w.stat(p)
	if c.err == nil && !c.isDir {
		// At most what a rule reads: a command can leave a file of any
		// size (a sparse terabyte costs it nothing).
		c.data, c.err = nsworkspace.ReadFileAtMost(w.fsys, p, maxClaimFileBytes)
	}
	w.content[p] = c
	return c
}

// stat says whether p exists and is a folder, without reading it.
func (w *workspace) stat(p string) fileContent {
	if c, ok := w.content[p]; ok {
		return fileContent{isDir: c.isDir, err: c.err}
	}
	if c, ok := w.stats[p]; ok {
		return c
	}
	var c fileContent
	if w.fsys == nil {
		c.err = fs.ErrNotExist
	} else if st, err := fs.Stat(w.fsys, p); err != nil {
		c.err = err
	} else {
		c.isDir = st.IsDir()
	}
	w.stats[p] = c
	return c
}

// isText reports whether p is a file whose start reads as text, from its
// first 4 KiB.
func (w *workspace) isText(p string) bool {
	if c := w.stat(p); c.err != nil || c.isDir {
		return false
	}
	f, err := w.fsys.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(f, buf)
	head := buf[:n]
	// A cut in the middle of a character is not binary.
	for len(head) > 0 && !utf8.Valid(head) && n == len(buf) && len(buf)-len(head) < utf8.UTFMax {
		head = head[:len(head)-1]
	}
	return utf8.Valid(head) && !bytes.Contains(head, []byte{0})
}

// exists reports whether p is a file or folder of the workspace now.
func (w *workspace) exists(p string) bool { return w.stat(p).err == nil }

// wasChanged reports whether the run changed p, or something under the
// folder p.
func (w *workspace) wasChanged(p string) bool { return w.changed[p] || w.dirs[p] }
