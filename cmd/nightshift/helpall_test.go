package main

import (
	"regexp"
	"strings"
	"testing"
)

// listed returns the commands a help text lists under "Available
// Commands:", by name.
func listed(help string) []string {
	_, after, ok := strings.Cut(help, "Available Commands:\n")
	if !ok {
		return nil
	}
	var names []string
	for _, line := range strings.Split(after, "\n") {
		m := commandLine.FindStringSubmatch(line)
		if m == nil {
			break
		}
		names = append(names, m[1])
	}
	return names
}

var commandLine = regexp.MustCompile(`^  ([a-z][a-z0-9-]*)\s{2,}\S`)

// Regression (issue 23): `nightshift help` and `nightshift completion`
// were listed by --help and answered exit 2 "unknown command". Every
// command that a help text lists, at every level, answers --help with its
// usage and exit 0, and `help` and `completion` do what they say.
func TestEveryListedCommandAnswersHelp(t *testing.T) {
	top := runCLI(t, "--help")
	if top.code != 0 {
		t.Fatalf("--help: exit %d\n%s", top.code, top.stderr)
	}
	queue := [][]string{nil}
	seen := 0
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		res := runCLI(t, append(append([]string{}, path...), "--help")...)
		name := strings.Join(append([]string{"nightshift"}, path...), " ")
		if res.code != 0 || !strings.Contains(res.stdout, "Usage:") {
			t.Errorf("%s --help: exit %d, stdout:\n%s\nstderr:\n%s", name, res.code, res.stdout, res.stderr)
			continue
		}
		seen++
		for _, sub := range listed(res.stdout) {
			queue = append(queue, append(append([]string{}, path...), sub))
		}
	}
	if seen < 20 {
		t.Errorf("only %d commands answered --help: is the listing still read right?", seen)
	}
	for _, want := range []string{"help", "completion"} {
		if !strings.Contains(strings.Join(listed(top.stdout), " "), want) {
			t.Errorf("--help no longer lists %s; this test expects it to", want)
		}
	}

	if res := runCLI(t, "help"); res.code != 0 || !strings.Contains(res.stdout, "Available Commands:") {
		t.Errorf("nightshift help: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := runCLI(t, "help", "run"); res.code != 0 || !strings.Contains(res.stdout, "--max-steps") {
		t.Errorf("nightshift help run: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		res := runCLI(t, "completion", shell)
		if res.code != 0 || !strings.Contains(res.stdout, "nightshift") {
			t.Errorf("nightshift completion %s: exit %d\n%.300s%s", shell, res.code, res.stdout, res.stderr)
		}
	}
	if res := runCLI(t, "nosuchcommand"); res.code != 2 {
		t.Errorf("an unknown command: exit %d, want 2 (usage)\n%s", res.code, res.stderr)
	}
}
