package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nightshift-dev/nightshift/workspace"
)

// prompt assembles the judge's user message. Every part is fenced by tags
// that carry a per-call random marker, and the marker is neutralised
// wherever it appears in the worker's output, so no text the worker wrote
// can close a fence early and pose as the harness.
type prompt struct {
	nonce  string
	budget int
}

// markerRemoved replaces the marker where the worker's output holds it.
const markerRemoved = "[marker removed]"

func (p prompt) clean(s string) string {
	return strings.ReplaceAll(s, p.nonce, markerRemoved)
}

func (p prompt) open(tag string, attrs ...string) string {
	return "<" + tag + "-" + p.nonce + strings.Join(attrs, "") + ">"
}

func (p prompt) close(tag string) string { return "</" + tag + "-" + p.nonce + ">" }

func (p prompt) section(b *strings.Builder, tag, body string, attrs ...string) {
	b.WriteString(p.open(tag, attrs...))
	b.WriteString("\n")
	b.WriteString(p.clean(body))
	if !strings.HasSuffix(body, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(p.close(tag))
	b.WriteString("\n\n")
}

// user holds the task, the final answer and the changed files, and the
// transcript only when one is given (the eval's second condition).
func (p prompt) user(in Input, transcript []string) string {
	var b strings.Builder
	p.section(&b, "task", in.Task)
	p.section(&b, "answer", in.Answer)
	if len(in.Unchecked) > 0 {
		p.section(&b, "unchecked-claims", "- "+strings.Join(in.Unchecked, "\n- "))
	}
	files := readChanged(in, p.budget)
	if len(files) == 0 {
		p.section(&b, "files", "(the run changed no files)")
	}
	var unshown []shownFile
	if len(files) > MaxJudgeFiles {
		files, unshown = files[:MaxJudgeFiles], files[MaxJudgeFiles:]
	}
	for _, f := range files {
		attrs := []string{" path=" + strconv.Quote(p.clean(f.path))}
		if f.note != "" {
			attrs = append(attrs, " note="+strconv.Quote(f.note))
		}
		p.section(&b, "file", f.shown, attrs...)
	}
	if len(unshown) > 0 {
		// A command that makes 100,000 files made a judge's prompt of
		// 2.6 million tokens: past a model's window, or paid for. The
		// judge is told how many it was not shown, and can fail the
		// run for it.
		var t strings.Builder
		fmt.Fprintf(&t, "The run changed %d more files, not shown here (at most %d are). The first of them:\n", len(unshown), MaxJudgeFiles)
		for i, f := range unshown {
			if i == 20 {
				t.WriteString("...\n")
				break
			}
			fmt.Fprintf(&t, "- %s\n", strconv.Quote(f.path))
		}
		p.section(&b, "files-not-shown", t.String())
	}
	if transcript != nil {
		var t strings.Builder
		for i, turn := range transcript {
			if i > 0 {
				t.WriteString("\n")
			}
			fmt.Fprintf(&t, "[turn %d]\n%s\n", i+1, strings.TrimRight(turn, "\n"))
		}
		p.section(&b, "transcript", t.String())
	}
	return strings.TrimRight(b.String(), "\n")
}

// MaxJudgeFiles is how many changed files the judge is shown at most;
// the rest are counted, and the first of them named.
const MaxJudgeFiles = 500

// shownFile is one changed file as the judge sees it.
type shownFile struct {
	path  string
	data  []byte
	shown string
	// size is the file's size, of which data may hold only the start.
	size int64
	// note says why the content is not the whole file: deleted,
	// truncated, binary, unreadable.
	note string
}

// readChanged reads the changed files' final content within budget bytes
// in all. Small files are shown whole and large ones share what is left
// (so one huge log cannot hide the file that matters); every cut is marked
// in the content and in the tag's note.
func readChanged(in Input, budget int) []shownFile {
	fsys, done, openErr := in.files()
	if openErr == nil {
		defer done()
	}
	var files []shownFile
	seen := map[string]bool{}
	for _, path := range in.Changed {
		if seen[path] {
			continue
		}
		seen[path] = true
		f := shownFile{path: path}
		if len(files) >= MaxJudgeFiles {
			// Not shown: not read either.
			files = append(files, f)
			continue
		}
		data, err := []byte(nil), openErr
		if err == nil {
			// Never more than the whole budget of one file: a command can
			// leave a file of any size (a sparse terabyte costs it
			// nothing), and reading it whole ran the process out of
			// memory.
			data, f.size, err = readHead(fsys, path, int64(budget))
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			f.note, f.shown = "deleted", "(deleted by the run)"
		case err != nil:
			f.note = "not readable"
			f.shown = "(not readable: " + describeFileError(err) + ")"
		case len(data) == 0:
			f.note, f.shown = "empty", "(empty file)"
		case isBinary(cutRune(data, f.size)):
			f.note = "binary"
			f.shown = fmt.Sprintf("(binary file, %d bytes, not shown)", f.size)
		default:
			f.data = data
		}
		files = append(files, f)
	}
	// Hand out the budget smallest first: each file gets at most an equal
	// share of what is left.
	order := make([]int, 0, len(files))
	for i, f := range files {
		if f.data != nil {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(files[a].data) - len(files[b].data) })
	left := budget
	for k, i := range order {
		f := &files[i]
		share := left / (len(order) - k)
		n := min(len(f.data), share)
		// Cut on a character boundary.
		for n > 0 && n < len(f.data) && !utf8.RuneStart(f.data[n]) {
			n--
		}
		left -= n
		f.shown = string(f.data[:n])
		if int64(n) < max(f.size, int64(len(f.data))) {
			f.note = "truncated"
			f.shown = strings.TrimRight(f.shown, "\n") +
				fmt.Sprintf("\n[... truncated: showing the first %d of %d bytes]", n, max(f.size, int64(len(f.data))))
		}
	}
	return files
}

// cutRune drops a character cut in two at the end of data, the start of
// a file of size bytes: the cut is the reader's, not the file's.
func cutRune(data []byte, size int64) []byte {
	if int64(len(data)) >= size {
		return data
	}
	for k := 0; k < utf8.UTFMax && k < len(data); k++ {
		if utf8.Valid(data[:len(data)-k]) {
			return data[:len(data)-k]
		}
	}
	return data
}

// isBinary reports content a judge cannot read as text.
func isBinary(b []byte) bool {
	return slices.Contains(b, 0) || !utf8.Valid(b)
}

// readHead reads the start of the regular file at path in files, at
// most n bytes, and its size.
func readHead(files fs.FS, path string, n int64) ([]byte, int64, error) {
	if st, err := fs.Stat(files, path); err != nil {
		return nil, 0, err
	} else if st.IsDir() {
		return nil, 0, errIsDir
	}
	return workspace.ReadHeadFS(files, path, n)
}
