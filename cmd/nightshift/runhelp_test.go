package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/nightshift-dev/nightshift/llm/models"
)

// TestRunHelpShowsTheDefaultsTheRunUses: `run --help` shows the --approve
// default and the default models (issue 17), and every default README's
// table of run's flags states is the flag's real default.
func TestRunHelpShowsTheDefaultsTheRunUses(t *testing.T) {
	help := runCLI(t, "run", "--help").stdout
	for _, want := range []string{
		"read=allow,write=allow,danger=ask",
		models.Default().DefaultModel("anthropic", models.Worker),
		models.Default().DefaultModel("openai", models.Worker),
	} {
		if want == "" || !strings.Contains(help, want) {
			t.Errorf("run --help does not show %q:\n%s", want, help)
		}
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flags := newRunCmd().Flags()
	row := regexp.MustCompile("^\\| (`--[^|]+) \\| ([^|]*) \\|")
	names := regexp.MustCompile("`--([a-z-]+)")
	checked := 0
	for _, line := range strings.Split(string(readme), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		doc := strings.TrimSpace(m[2])
		for _, n := range names.FindAllStringSubmatch(m[1], -1) {
			f := flags.Lookup(n[1])
			if f == nil {
				t.Errorf("README's table names --%s, which run does not have", n[1])
				continue
			}
			if ok, known := sameDefault(f, doc, help); known {
				checked++
				if !ok {
					t.Errorf("README says --%s defaults to %q; run's default is %q", f.Name, doc, f.DefValue)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d defaults of README's table: has its shape changed?", checked)
	}
}

// sameDefault compares the default a README row states with the flag's:
// known is false for a default in words that names no value ("from the
// keys", "learned").
func sameDefault(f *pflag.Flag, doc, help string) (ok, known bool) {
	lit := strings.Trim(doc, "`")
	switch {
	case doc == "":
		return f.DefValue == "" || f.DefValue == "[]" || f.DefValue == "false", true
	case doc == "off":
		return f.Value.Type() == "bool" && f.DefValue == "false", true
	case doc == "none":
		return f.DefValue == "0" || f.DefValue == "0s" || f.DefValue == "", true
	case f.Value.Type() == "duration":
		// 2m is 2m0s; --keep-state's 30d is its own.
		d, err := time.ParseDuration(lit)
		return (err == nil && d.String() == f.DefValue) || lit == f.DefValue, true
	case f.Value.Type() == "stringArray" && strings.Count(doc, "`") == 2:
		// A repeatable flag's default is in its usage: --approve's policy.
		return strings.Contains(help, lit), true
	case strings.Count(doc, "`") == 2 || regexp.MustCompile(`^[0-9][0-9a-z.]*$`).MatchString(doc):
		return lit == f.DefValue, true
	}
	return false, false
}
