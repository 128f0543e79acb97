package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocumentedCommandsParse reads every command line the documentation
// shows (README.md and docs/*.md, in fenced blocks, starting with
// nightshift) and runs it with --help: each must name commands and flags
// that exist, so that a newcomer who copies it gets the command, not a
// usage error. Commands that need a key, a network or a database are
// checked this way too, without running them.
func TestDocumentedCommandsParse(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../README.md")
	seen := 0
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inShell, inFence := false, false
		// A line ending in a backslash goes on on the next one.
		text := strings.ReplaceAll(string(doc), "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "```") {
				lang := strings.TrimPrefix(line, "```")
				inShell = !inFence && (lang == "" || lang == "sh" || lang == "bash" || lang == "console" || lang == "shell")
				inFence = !inFence
				continue
			}
			if !inShell {
				continue
			}
			args := documentedArgs(line)
			if args == nil {
				continue
			}
			seen++
			t.Run(filepath.Base(f)+": "+strings.Join(args, " "), func(t *testing.T) {
				res := runCLI(t, append(args, "--help")...)
				if res.code != 0 {
					t.Errorf("exit %d: %s", res.code, res.stderr)
				}
			})
		}
	}
	if seen < 20 {
		t.Errorf("found only %d documented commands: has the documentation's shape changed?", seen)
	}
}

// documentedArgs returns the arguments of a documented nightshift command
// line, or nil when the line is not one: a leading $ prompt, environment
// assignments and a trailing comment are dropped, and the line is cut at
// the first pipe, redirection or list operator.
func documentedArgs(line string) []string {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	words := shellWords(line)
	for len(words) > 0 && regexp.MustCompile(`^[A-Z_]+=`).MatchString(words[0]) {
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
		case r == ' ' || r == '\t':
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
