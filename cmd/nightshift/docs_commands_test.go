package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The documentation's commands run as a newcomer would run them (issue
// 17): TestDocumentedCommandsRun reads every fenced block of README.md and
// docs/*.md and plays each file's blocks, in order, as one shell session
// in a fresh copy of the repository, with nightshift installed once by
// the documented `CGO_ENABLED=0 go install -tags nopostgres ./cmd/nightshift`, no API key, its own
// NIGHTSHIFT_STATE_DIR, HOME and TMPDIR, and no terminal. The rules the
// documentation follows so that this works (README.md, "Developing"):
//
//   - Every fence says what it holds: sh, bash, shell or console for
//     commands (in console, only the lines after "$ "), text for output,
//     yaml, json, go, ... for the rest. A bare fence is an error.
//   - Every command must exit 0, unless its comment says otherwise
//     ("# ... (exit 3)").
//   - A block of commands that needs an API key, the network or a
//     PostgreSQL server says so on the line before its fence:
//     <!-- doc-test: needs key -->, needs network, needs postgres (or
//     several, comma-separated). Those are the only blocks not run; their
//     nightshift commands are still run with --help, so that each names
//     commands and flags that exist.
//   - The Go toolchain's lines are the developer's, not nightshift's:
//     `go install -tags nopostgres ./cmd/nightshift` is what the test
//     itself does first, `go run ./cmd/nightshift ARGS` runs as
//     `nightshift ARGS`, and the test suite (`go test`, `go run
//     …staticcheck…`, `.ci/run`) is not run from inside itself.
//   - A block of another language is a file to create when the
//     paragraph before it starts with the file's name in backticks and
//     ends with a colon ("`pipeline.yaml`:"), or when its first line is
//     a comment naming it ("# task.yaml"): the session writes it, as a
//     reader would, in its current folder at that point.

// docBlock is one fenced block of a document.
type docBlock struct {
	doc   string   // the document's name, for messages
	line  int      // the line of its opening fence
	lang  string   // its info string
	lines []string // its content
	needs []string // what it needs, from its doc-test marker
	file  string   // for a block that is a file: the file's name
	cmds  []docCommand
}

// docCommand is one command of a session.
type docCommand struct {
	id   string // doc:line
	text string // as written
	run  string // as run ("" when not run)
	want int    // the exit status it must end with
	why  string // why it is not run
}

var (
	docMarker   = regexp.MustCompile(`^<!-- doc-test: needs ([a-z, ]+) -->$`)
	docFileName = `[A-Za-z0-9_./-]+\.(?:ya?ml|jsonl?|md|txt)`
	fileComment = regexp.MustCompile(`^# (` + docFileName + `)$`)
	fileIntro   = regexp.MustCompile("^`(" + docFileName + ")`")
	wantExit    = regexp.MustCompile(`#.*\(exit (\d+)\)`)
	envAssign   = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
)

// docNeeds are the reasons a block may give for not being run.
var docNeeds = []string{"key", "network", "postgres"}

// shellLangs are the info strings of blocks of commands.
var shellLangs = []string{"sh", "bash", "shell", "console"}

// parseDoc reads the fenced blocks of a Markdown file.
func parseDoc(path string) ([]docBlock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		b := docBlock{doc: filepath.Base(path), line: i + 1, lang: strings.TrimSpace(strings.TrimPrefix(lines[i], "```"))}
		if b.lang == "" {
			return nil, fmt.Errorf("%s:%d: a fence without a language: say sh for commands, text for output", b.doc, b.line)
		}
		// The paragraph before the fence: a marker, or a file's name.
		j := i - 1
		for j >= 0 && strings.TrimSpace(lines[j]) == "" {
			j--
		}
		if j >= 0 {
			if m := docMarker.FindStringSubmatch(strings.TrimSpace(lines[j])); m != nil {
				for _, n := range strings.Split(m[1], ",") {
					n = strings.TrimSpace(n)
					if !slices.Contains(docNeeds, n) {
						return nil, fmt.Errorf("%s:%d: doc-test marker: needs %q, want one of %v", b.doc, j+1, n, docNeeds)
					}
					b.needs = append(b.needs, n)
				}
			} else if strings.HasSuffix(strings.TrimSpace(lines[j]), ":") {
				k := j
				for k > 0 && strings.TrimSpace(lines[k-1]) != "" {
					k--
				}
				if m := fileIntro.FindStringSubmatch(lines[k]); m != nil {
					b.file = m[1]
				}
			}
		}
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			b.lines = append(b.lines, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: the fence is never closed", b.doc, b.line)
		}
		if b.file == "" && len(b.lines) > 0 && !slices.Contains(shellLangs, b.lang) {
			if m := fileComment.FindStringSubmatch(b.lines[0]); m != nil {
				b.file = m[1]
			}
		}
		if b.needs != nil && !slices.Contains(shellLangs, b.lang) {
			return nil, fmt.Errorf("%s:%d: a doc-test marker on a block that holds no commands", b.doc, b.line)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// commands splits a block of commands into whole commands (a line that
// ends in a backslash, or a loop, goes on over the next lines) and says
// how each is run.
func (b docBlock) commands(t *testing.T) []docCommand {
	t.Helper()
	var out []docCommand
	var cur []string
	start := 0
	for i, line := range b.lines {
		if b.lang == "console" {
			cmd, ok := strings.CutPrefix(line, "$ ")
			if !ok && len(cur) == 0 {
				continue // output
			}
			line = cmd
		}
		if len(cur) == 0 {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			start = b.line + 1 + i
		}
		cur = append(cur, line)
		text := strings.Join(cur, "\n")
		if strings.HasSuffix(line, "\\") || !bashParses(t, text) {
			continue
		}
		out = append(out, newDocCommand(fmt.Sprintf("%s:%d", b.doc, start), text))
		cur = nil
	}
	if cur != nil {
		t.Fatalf("%s:%d: an unfinished command: %s", b.doc, start, strings.Join(cur, "\n"))
	}
	return out
}

// bashParses reports whether text is a whole shell command.
func bashParses(t *testing.T, text string) bool {
	t.Helper()
	err := exec.Command("bash", "-n", "-c", text).Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("bash -n: %v", err)
	}
	return err == nil
}

// newDocCommand says how the command text is run: as written, or, for
// the Go toolchain's lines, as the test's own install step, as the
// installed nightshift, or not at all.
func newDocCommand(id, text string) docCommand {
	c := docCommand{id: id, text: text, run: text}
	if m := wantExit.FindStringSubmatch(text); m != nil {
		c.want, _ = strconv.Atoi(m[1])
	}
	words := shellWords(text)
	for len(words) > 0 && envAssign.MatchString(words[0]) {
		words = words[1:]
	}
	switch {
	case len(words) >= 3 && words[0] == "go" && words[1] == "install" && words[len(words)-1] == "./cmd/nightshift":
		c.run, c.why = "", "the test's own first step"
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/nightshift":
		c.run = "nightshift" + strings.SplitN(text, "./cmd/nightshift", 2)[1]
	case len(words) > 0 && words[0] == "go", slices.ContainsFunc(words, func(w string) bool { return strings.HasSuffix(w, ".ci/run") }):
		c.run, c.why = "", "the Go toolchain's: the test suite is not run from inside itself"
	}
	return c
}

// TestDocumentedCommandsRun plays the documentation's commands (see the
// rules at the top of this file). With -short it only checks that each
// nightshift command names commands and flags that exist.
func TestDocumentedCommandsRun(t *testing.T) {
	for _, tool := range []string{"bash", "go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s to install nightshift and play the documentation's commands with", tool)
		}
	}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{"../../README.md"}, docs...)
	var bin string
	if !testing.Short() {
		bin = installNightshift(t)
	}
	total := 0
	byDoc := make([][]docBlock, len(docs))
	for i, doc := range docs {
		blocks, err := parseDoc(doc)
		if err != nil {
			t.Fatal(err)
		}
		for j, b := range blocks {
			if slices.Contains(shellLangs, b.lang) {
				blocks[j].cmds = b.commands(t)
				total += len(blocks[j].cmds)
			}
		}
		byDoc[i] = blocks
	}
	if total < 40 {
		t.Errorf("found only %d documented commands: has the documentation's shape changed?", total)
	}
	for i, doc := range docs {
		t.Run(filepath.Base(doc), func(t *testing.T) {
			var session []docBlock
			for _, b := range byDoc[i] {
				if !slices.Contains(shellLangs, b.lang) || (b.needs == nil && !testing.Short()) {
					session = append(session, b)
					continue
				}
				for _, c := range b.cmds {
					args := documentedArgs(c.run)
					if args == nil {
						continue
					}
					if b.needs != nil {
						t.Logf("%s: not run (needs %s), checked with --help: %s", c.id, strings.Join(b.needs, ", "), c.text)
					}
					if res := runCLI(t, append(args, "--help")...); res.code != 0 {
						t.Errorf("%s: %s --help: exit %d: %s", c.id, strings.Join(args, " "), res.code, res.stderr)
					}
				}
			}
			if !testing.Short() {
				playSession(t, bin, session)
			}
		})
	}
}

// installNightshift runs the documented install step once, into a
// folder of the test's, and returns that folder.
func installNightshift(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "install", "-tags", readmeTags, "./cmd/nightshift")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "CGO_ENABLED=0") // as README.md installs it
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install -tags %s ./cmd/nightshift: %v\n%s", readmeTags, err, out)
	}
	return bin
}

// freshClone copies the repository's files (those git tracks, and new
// ones it does not ignore: what a clone of this tree would hold) into
// dir.
func freshClone(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (the documentation's commands run on a copy of a git checkout)", err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join("../..", name)
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// docSessionTimeout bounds one document's session.
const docSessionTimeout = 5 * time.Minute

// playSession runs one document's blocks as one bash session and checks
// each command's exit status.
func playSession(t *testing.T, bin string, blocks []docBlock) {
	t.Helper()
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "nightshift")
	for _, d := range []string{clone, filepath.Join(tmp, "home"), filepath.Join(tmp, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	freshClone(t, clone)
	var script strings.Builder
	script.WriteString("exec 9>>\"$DOCTEST_STATUS\"\ncd \"$DOCTEST_CLONE\"\n")
	var cmds []docCommand
	for _, b := range blocks {
		if !slices.Contains(shellLangs, b.lang) {
			if b.file != "" {
				fmt.Fprintf(&script, "cat > '%s' <<'DOCTEST_EOF'\n%s\nDOCTEST_EOF\n", b.file, strings.Join(b.lines, "\n"))
			}
			continue
		}
		for _, c := range b.cmds {
			cmds = append(cmds, c)
			if c.run == "" {
				t.Logf("%s: not run (%s): %s", c.id, c.why, c.text)
				continue
			}
			fmt.Fprintf(&script, "printf '\\n### %%s\\n' %s\n%s\ndoctest_status=$?; printf '%%s %%d\\n' %s $doctest_status >&9\n",
				shellQuote(c.id+": "+c.text), c.run, shellQuote(c.id))
		}
	}
	scriptPath, statusPath, outPath := filepath.Join(tmp, "session.sh"), filepath.Join(tmp, "status"), filepath.Join(tmp, "output")
	if err := os.WriteFile(scriptPath, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), docSessionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", scriptPath)
	// Files, not pipes: a server a block leaves in the background must
	// not keep the test waiting for its output to end.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + filepath.Join(tmp, "home"),
		"TMPDIR=" + filepath.Join(tmp, "tmp"),
		"NIGHTSHIFT_STATE_DIR=" + filepath.Join(tmp, "state"),
		"LANG=C.UTF-8",
		"DOCTEST_CLONE=" + clone,
		"DOCTEST_STATUS=" + statusPath,
	}
	// Its own process group, so that what the session leaves running (a
	// simulator in the background) is stopped with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	runErr := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // nothing left is the usual case
	}
	output, _ := os.ReadFile(outPath)
	if ctx.Err() != nil {
		t.Fatalf("the session did not end within %s:\n%s", docSessionTimeout, tail(string(output), 4000))
	}
	statuses := map[string]int{}
	if data, err := os.ReadFile(statusPath); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			id, st, _ := strings.Cut(sc.Text(), " ")
			statuses[id], _ = strconv.Atoi(st)
		}
	}
	for _, c := range cmds {
		if c.run == "" {
			continue
		}
		st, ok := statuses[c.id]
		switch {
		case !ok:
			t.Errorf("%s: did not run (the session ended before it: %v): %s\n%s", c.id, runErr, c.text, tail(string(output), 4000))
		case st != c.want:
			t.Errorf("%s: exit %d, want %d: %s\n%s", c.id, st, c.want, c.text, section(string(output), c.id))
		default:
			t.Logf("%s: ran, exit %d: %s", c.id, st, c.text)
		}
	}
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// section returns what a session printed while the command id ran.
func section(output, id string) string {
	i := strings.Index(output, "\n### "+id+": ")
	if i < 0 {
		return tail(output, 4000)
	}
	s := output[i+1:]
	if j := strings.Index(s[4:], "\n### "); j >= 0 {
		s = s[:j+4]
	}
	return tail(s, 4000)
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// documentedArgs returns the arguments of a documented nightshift command
// line, or nil when the line is not one: a leading $ prompt, environment
// assignments and a trailing comment are dropped, and the line is cut at
// the first pipe, redirection or list operator.
func documentedArgs(line string) []string {
	line = strings.ReplaceAll(line, "\\\n", " ")
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	words := shellWords(line)
	for len(words) > 0 && envAssign.MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) < 2 || words[0] != "nightshift" {
		return nil
	}
	var args []string
	for _, w := range words[1:] {
		if w == "|" || w == "&&" || w == ";" || w == "&" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") || w == "..." {
			break
		}
		args = append(args, w)
	}
	return args
}

// shellWords splits a line into words, keeping quoted text together.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
