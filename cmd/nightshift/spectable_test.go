package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/runspec"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// sample is a value for an option as each front end writes it: on the
// command line, in YAML, in JSON; extra are what it needs beside it.
type sample struct {
	flag, yaml, json string
	// flagExtra, keyExtra and roleExtra are other settings it needs (a
	// fallback for fallback_on).
	flagExtra []string
	keyExtra  string
	roleExtra string
}

// sampleOf picks a value of the option's field that is not its default.
func sampleOf(o runspec.Option, v reflect.Value) (sample, bool) {
	switch o.Field {
	case "MCP", "Memory":
		// A mapping with no flag; memory's default differs by front end
		// (on for a pipeline's builder): each has tests of its own.
		return sample{}, false
	case "Provider":
		return sample{flag: "scripted"}, true
	case "Sandbox":
		return sample{flag: "none", yaml: "none", json: `"none"`}, true
	case "FallbackOn":
		return sample{flag: "quota", yaml: "quota", json: `"quota"`, flagExtra: []string{"--fallback-model", "m2"},
			keyExtra: "fallback_model: m2\n", roleExtra: ", fallback: m2"}, true
	case "MaxTokensField":
		return sample{flag: "max_tokens"}, true
	case "Checks":
		return sample{flag: "exists:a.md", yaml: "[exists:a.md]", json: `["exists:a.md"]`}, true
	case "Approve":
		return sample{flag: "run_command=deny", yaml: "[run_command=deny]", json: `["run_command=deny"]`}, true
	case "Env":
		return sample{flag: "GOFLAGS", yaml: "[GOFLAGS]", json: `["GOFLAGS"]`}, true
	case "SubagentSteps":
		return sample{flag: "7", flagExtra: []string{"--subagents"}}, true
	case "Claims":
		// --no-claims is claims: false.
		return sample{flag: "true", yaml: "false", json: "false"}, true
	case "BudgetUSD":
		return sample{flag: "0.5", yaml: "0.5", json: "0.5"}, true
	case "FallbackModel", "JudgeModel":
		return sample{flag: "m2", yaml: "m2", json: `"m2"`}, true
	case "MaxFileSize":
		return sample{flag: "1MiB", yaml: "1MiB", json: `"1MiB"`}, true
	case "OtelFile":
		return sample{flag: "traces.jsonl"}, true
	}
	switch v.Kind() {
	case reflect.Bool:
		return sample{flag: "true", yaml: "true", json: "true"}, true
	case reflect.Int, reflect.Int64:
		if v.Type().Name() == "Duration" {
			return sample{flag: "90m", yaml: "90m", json: `"90m"`}, true
		}
		return sample{flag: "7", yaml: "7", json: "7"}, true
	case reflect.Pointer:
		if v.Type().Elem().Name() == "Duration" {
			return sample{flag: "30s"}, true
		}
		return sample{flag: "7", yaml: "7", json: "7"}, true
	case reflect.String:
		name := "x-" + cmp.Or(o.Key, o.Flag)
		return sample{flag: name, yaml: name, json: `"` + name + `"`}, true
	case reflect.Slice:
		return sample{flag: "a=b"}, true
	}
	return sample{}, false
}

// value reads the option's field, pointers followed, paths cut to their
// base (a task file's are read relative to it).
func value(o runspec.Option, s *runspec.Spec) any {
	v := o.Value(s)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.String && strings.Contains(v.String(), string(filepath.Separator)) {
		return filepath.Base(v.String())
	}
	if v.Kind() == reflect.Slice {
		return fmt.Sprint(v.Interface())
	}
	return v.Interface()
}

// TestEveryFrontEndDecodesEveryOptionToTheSameValue is issue 24's table
// test: for each row of runspec.Table, the flag, the task file's key, a
// batch's JSON line and a pipeline role's key put the same value into the
// same field of the run spec.
func TestEveryFrontEndDecodesEveryOptionToTheSameValue(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": "turns: [{text: done}]\n", "x-output_schema": `{"type": "object"}`})
	for _, o := range runspec.Table {
		if o.Field == "" {
			continue
		}
		var zero runspec.Spec
		smp, ok := sampleOf(o, o.Value(&zero))
		if !ok {
			continue
		}
		t.Run(o.Field, func(t *testing.T) {
			var got []any
			var fronts []string
			if o.Flag != "" {
				var f runFlags
				cmd := &cobra.Command{Use: "run"}
				addRunFlags(cmd, &f)
				args := append([]string{"--" + o.Flag + "=" + smp.flag}, smp.flagExtra...)
				if err := cmd.ParseFlags(args); err != nil {
					t.Fatal(err)
				}
				spec, err := mergeTask(cmd, &f, "x")
				if err != nil {
					t.Fatalf("--%s: %v", o.Flag, err)
				}
				got, fronts = append(got, value(o, &spec.Spec)), append(fronts, "--"+o.Flag)
			}
			if o.Key != "" {
				path := filepath.Join(dir, o.Key+".yaml")
				if err := os.WriteFile(path, []byte("task: x\n"+o.Key+": "+smp.yaml+"\n"+smp.keyExtra), 0o644); err != nil {
					t.Fatal(err)
				}
				spec, err := taskfile.Load(path)
				if err != nil {
					t.Fatalf("task file: %v", err)
				}
				got, fronts = append(got, value(o, &spec.Spec)), append(fronts, "task file "+o.Key)
				line := fmt.Sprintf(`{"task": "x", %q: %s}`, o.Key, smp.json)
				if smp.keyExtra != "" {
					k, v, _ := strings.Cut(strings.TrimSpace(smp.keyExtra), ": ")
					line = strings.TrimSuffix(line, "}") + fmt.Sprintf(", %q: %q}", k, v)
				}
				if err := os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte(line+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				specs, err := taskfile.LoadList(filepath.Join(dir, "t.jsonl"))
				if err != nil {
					t.Fatalf("JSON line %s: %v", line, err)
				}
				got, fronts = append(got, value(o, &specs[0].Spec)), append(fronts, "batch line "+o.Key)
			}
			if o.RoleKey != "" {
				p := fmt.Sprintf("window: {start: \"22:00\", end: \"06:00\"}\nmodels:\n  m1: {provider: scripted, scenario: s.yaml}\n  m2: {provider: scripted, scenario: s.yaml}\nroles:\n  builder: {models: [m1], %s: %s%s}\n",
					o.RoleKey, smp.yaml, smp.roleExtra)
				path := filepath.Join(dir, "pipeline.yaml")
				if err := os.WriteFile(path, []byte(p), 0o644); err != nil {
					t.Fatal(err)
				}
				pl, err := night.LoadPipeline(path)
				if err != nil {
					t.Fatalf("pipeline role: %v", err)
				}
				got, fronts = append(got, value(o, &pl.Role(ledger.Builder).Spec)), append(fronts, "role "+o.RoleKey)
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], got[0]) {
					t.Errorf("%s decodes to %v, %s to %v", fronts[0], got[0], fronts[i], got[i])
				}
			}
			if reflect.DeepEqual(got[0], value(o, &zero)) {
				t.Errorf("%s decodes to the default %v: the sample does not reach the field", fronts[0], got[0])
			}
		})
	}
}

// TestEveryFrontEndNamesABadValueWithItsFlagOrKeyAndLine: the same bad
// value, named by each front end in its own words.
func TestEveryFrontEndNamesABadValueWithItsFlagOrKeyAndLine(t *testing.T) {
	dir := t.TempDir()
	var f runFlags
	cmd := &cobra.Command{Use: "run"}
	addRunFlags(cmd, &f)
	if err := cmd.ParseFlags([]string{"--max-calls-per-reply=-1"}); err != nil {
		t.Fatal(err)
	}
	_, err := mergeTask(cmd, &f, "x")
	if err == nil || !strings.Contains(err.Error(), "--max-calls-per-reply (task file: max_calls_per_reply) must not be negative, got -1") {
		t.Errorf("flag: %v", err)
	}
	writeFiles(t, dir, map[string]string{
		"t.yaml":        "task: x\nmax_calls_per_reply: -1\n",
		"t.jsonl":       `{"task": "a"}` + "\n" + `{"task": "b", "max_calls_per_reply": -1}` + "\n",
		"pipeline.yaml": "window: {start: \"22:00\", end: \"06:00\"}\nmodels: {m1: {provider: scripted, scenario: s.yaml}}\nroles:\n  builder:\n    models: [m1]\n    max_calls_per_reply: -1\n",
	})
	_, err = taskfile.Load(filepath.Join(dir, "t.yaml"))
	if want := "t.yaml: max_calls_per_reply must not be negative, got -1 (line 2)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("task file: %v, want %q", err, want)
	}
	_, err = taskfile.LoadList(filepath.Join(dir, "t.jsonl"))
	if want := "max_calls_per_reply must not be negative, got -1 (line 2)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("batch line: %v, want %q", err, want)
	}
	_, err = night.LoadPipeline(filepath.Join(dir, "pipeline.yaml"))
	if want := "roles.builder.max_calls_per_reply must not be negative, got -1 (line 6)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("pipeline: %v, want %q", err, want)
	}
}

// TestTheDocsListExactlyTheTablesOptions: README's table of run's flags,
// README's task-file keys and docs/night.md's role keys list exactly the
// run spec table's entries.
func TestTheDocsListExactlyTheTablesOptions(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	section := func(doc, start, end string) string {
		i := strings.Index(doc, start)
		if i < 0 {
			t.Fatalf("no %q", start)
		}
		rest := doc[i:]
		if j := strings.Index(rest[len(start):], end); j >= 0 {
			rest = rest[:len(start)+j]
		}
		return rest
	}
	rowNames := func(text, pattern string) []string {
		var out []string
		row := regexp.MustCompile("(?m)^\\| (`[^|]+) \\|")
		name := regexp.MustCompile(pattern)
		for _, m := range row.FindAllStringSubmatch(text, -1) {
			for _, n := range name.FindAllStringSubmatch(m[1], -1) {
				out = append(out, n[1])
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	readme := read("../../README.md")
	var flags, keys, roleKeys []string
	for _, o := range runspec.Table {
		if o.Flag != "" && o.Group != runspec.EcosystemGroup {
			flags = append(flags, o.Flag)
		}
	}
	keys = append(runspec.Keys(), "task", "name")
	roleKeys = append(runspec.RoleKeys(), "models", "prompt", "ceiling")
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"README's flag table", rowNames(section(readme, "## Running a task", "\n##"), "`--([a-z-]+)"), flags},
		{"README's task-file key table", rowNames(section(readme, "## Task files", "\n## "), "`([a-z_]+)`"), keys},
		{"docs/night.md's role key table", rowNames(section(read("../../docs/night.md"), "### A role's keys", "\n## "), "`([a-z_]+)`"), roleKeys},
	} {
		want := slices.Clone(c.want)
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(c.got, want) {
			t.Errorf("%s lists %v,\nthe table %v", c.what, c.got, want)
		}
	}
	// Every flag of the table is run's, and its doc line is the table's.
	cmd := newRunCmd()
	for _, o := range runspec.Table {
		if o.Flag == "" {
			continue
		}
		fl := cmd.Flags().Lookup(o.Flag)
		if fl == nil {
			t.Errorf("run has no --%s", o.Flag)
			continue
		}
		if !strings.HasPrefix(fl.Usage, o.Doc) {
			t.Errorf("--%s: usage %q, the table's doc line %q", o.Flag, fl.Usage, o.Doc)
		}
	}
}
