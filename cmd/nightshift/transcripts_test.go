package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The documentation quotes nightshift's output in transcripts: a fenced
// text or console block whose lines starting with "$ nightshift " are
// commands and whose lines after each, up to the next "$ ", are what that
// command printed ("..." alone on a line elides some; "…" within one
// stands for any text). TestDocTranscriptsMatchTheOutput produces each
// transcript's situation (a setup below, keyed by the command as the
// document writes it), runs the command, and checks that every quoted
// line is a line of the real output, in order, and that an `echo $?`
// line after it gives its exit status. A quoted line compares with run
// IDs and absolute paths taken for any, since those are the reader's
// own. A transcript without a setup fails the test: the output it
// quotes is not checked, so it will drift (issue 23: side-effects.md
// showed a recovery message the code had stopped printing).

// transcript is one command of a documented transcript and what the
// document says it printed.
type transcript struct {
	id     string   // doc:line of the command
	args   []string // its arguments, after "nightshift"
	lines  []string // the output lines it quotes
	status int      // the exit status an `echo $?` after it gives; -1 when none
}

// transcriptSetups make the situation of each transcript in dir and
// return the arguments to run instead of the document's (which name the
// reader's folders, and give no model: the test adds the scripted one).
var transcriptSetups = map[string]func(t *testing.T, dir string, args []string) []string{
	// docs/side-effects.md, Recovery: a run died midway in the folder.
	`run --dir ./project`: func(t *testing.T, dir string, args []string) []string {
		work, scenario, c := killedRun(t)
		c.wait(t)
		return []string{"run", "--dir", work, "--provider", "scripted", "--scenario", scenario, "--no-judge", "Another task"}
	},
	// docs/budgets.md, Paused outcomes: a run stopped by its token budget.
	`run --budget-tokens 3000 --task-file task.yaml`: func(t *testing.T, dir string, args []string) []string {
		writeFiles(t, dir, map[string]string{
			"task.yaml":    "task: Write nine files.\ndir: project\nno_judge: true\n",
			"project/a.md": "a\n",
			"s.yaml":       "turns:\n" + strings.ReplaceAll(nineWrites(), "      - ", "  - ") + "  - text: Wrote nine files.\n",
		})
		return append(args[:len(args)-1:len(args)-1], filepath.Join(dir, "task.yaml"), "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"))
	},
}

// docTranscripts reads the transcripts of README.md and docs/*.md.
func docTranscripts(t *testing.T) []transcript {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []transcript
	for _, doc := range append([]string{"../../README.md"}, docs...) {
		blocks, err := parseDoc(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if b.lang != "text" && b.lang != "console" {
				continue
			}
			var cur *transcript
			for i, line := range b.lines {
				if cmd, ok := strings.CutPrefix(line, "$ "); ok {
					if cur != nil && strings.TrimSpace(cmd) == "echo $?" && i+1 < len(b.lines) {
						cur.status, _ = strconv.Atoi(strings.TrimSpace(b.lines[i+1]))
						out = append(out, *cur)
						cur = nil
						continue
					}
					if cur != nil {
						out = append(out, *cur)
						cur = nil
					}
					if args := documentedArgs(cmd); args != nil {
						cur = &transcript{id: fmt.Sprintf("%s:%d", b.doc, b.line+1+i), args: args, status: -1}
					}
					continue
				}
				if cur != nil && strings.TrimSpace(line) != "..." && strings.TrimSpace(line) != "" {
					cur.lines = append(cur.lines, line)
				}
			}
			if cur != nil {
				out = append(out, *cur)
			}
		}
	}
	return out
}

var (
	runIDText   = regexp.MustCompile(`\d{8}T\d{6}Z-[0-9a-f]{8}`)
	absPathText = regexp.MustCompile(`/[^\s;,:()]+`)
)

// quotedLine is the pattern a quoted line must match: itself, with run
// IDs and absolute paths standing for any, and "…" for any text.
func quotedLine(line string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i, part := range strings.Split(line, "…") {
		if i > 0 {
			b.WriteString(".*")
		}
		part = regexp.QuoteMeta(part)
		part = runIDText.ReplaceAllString(part, `\d{8}T\d{6}Z-[0-9a-f]{8}`)
		part = absPathText.ReplaceAllStringFunc(part, func(string) string { return `/\S*?` })
		b.WriteString(part)
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func TestDocTranscriptsMatchTheOutput(t *testing.T) {
	all := docTranscripts(t)
	if len(all) < 2 {
		t.Fatalf("found %d transcripts: has the documentation's shape changed?", len(all))
	}
	for _, tr := range all {
		key := strings.Join(tr.args, " ")
		t.Run(tr.id, func(t *testing.T) {
			setup, ok := transcriptSetups[key]
			if !ok {
				t.Fatalf("%s quotes the output of `nightshift %s`, which no setup produces: add one to transcriptSetups", tr.id, key)
			}
			args := setup(t, t.TempDir(), slices.Clone(tr.args))
			res := runCLI(t, args...)
			got := strings.Split(res.stdout+"\n"+res.stderr, "\n")
			at := 0
			for _, want := range tr.lines {
				re := quotedLine(want)
				i := slices.IndexFunc(got[at:], re.MatchString)
				if i < 0 {
					t.Errorf("%s: the output has no line like\n  %s\n(after the %d lines matched so far); it printed:\n%s", tr.id, want, at, strings.Join(got, "\n"))
					return
				}
				at += i + 1
			}
			if tr.status >= 0 && res.code != tr.status {
				t.Errorf("%s: exit %d, the document says %d", tr.id, res.code, tr.status)
			}
		})
	}
}
