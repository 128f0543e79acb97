package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/nightshift-dev/nightshift/verify"
)

func TestDefaultCases(t *testing.T) {
	cases := DefaultCases()
	fromFile, err := LoadCases("testdata/cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromFile, cases, cmpopts.IgnoreUnexported(Case{})); diff != "" {
		t.Errorf("embedded cases differ from testdata/cases.yaml:\n%s", diff)
	}
	fails := 0
	for _, c := range cases {
		if !c.ExpectPass() {
			fails++
		}
		if len(c.Files) == 0 || len(c.Transcript) == 0 || c.Answer == "" {
			t.Errorf("case %q lacks files, a transcript or an answer", c.Name)
		}
	}
	if len(cases) < 12 || fails*2 != len(cases) {
		t.Errorf("%d cases, %d expected to FAIL; want at least 12, half of them half-finished", len(cases), fails)
	}
}

func TestParseCasesReadsYAMLAndJSONLines(t *testing.T) {
	want := []Case{
		{Name: "a", Task: "write a.md", Answer: "done", Files: []File{{Path: "a.md", Content: "x"}, {Path: "old.md", Deleted: true}}, Transcript: []string{"user: write a.md"}, Checks: []string{"contains:a.md:x:y"}, Expect: "FAIL"},
		{Name: "case 2", Task: "t", Answer: "ok", Expect: "PASS"},
	}
	yamlText := `
- name: a
  task: write a.md
  answer: done
  files:
    - {path: a.md, content: x}
    - {path: old.md, deleted: true}
  transcript: ["user: write a.md"]
  checks: ["contains:a.md:x:y"]
  expect: fail
- task: t
  answer: ok
  expect: PASS
`
	jsonLines := `{"name":"a","task":"write a.md","answer":"done","files":[{"path":"a.md","content":"x"},{"path":"old.md","deleted":true}],"transcript":["user: write a.md"],"checks":["contains:a.md:x:y"],"expect":"FAIL"}
{"task":"t","answer":"ok","expect":"pass"}
`
	for name, text := range map[string]string{"YAML": yamlText, "JSON lines": jsonLines} {
		t.Run(name+" is read", func(t *testing.T) {
			got, err := ParseCases([]byte(text), ".")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Case{})); diff != "" {
				t.Errorf("cases (-want +got):\n%s", diff)
			}
			if len(got[0].rules) != 1 {
				t.Error("the case's check was not parsed")
			}
		})
	}
}

func TestParseCasesRefusesBadCases(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"an empty file", "", "no cases: a case file is a YAML list of cases"},
		{"a misspelt field says where the format is", "- nme: x\n", "the format is in docs/eval.md"},
		{"a misspelt field", "- task: t\n  expected: PASS\n", "expected"},
		{"a case without a task", "- expect: PASS\n", "no task"},
		{"an expectation that is not a verdict", "- task: t\n  expect: maybe\n", "PASS or FAIL"},
		{"a file outside the workspace", "- task: t\n  expect: PASS\n  files: [{path: ../x, content: y}]\n", "stay inside"},
		{"a check that cannot run", "- task: t\n  expect: PASS\n  checks: ['matches:a.md:([']\n", "bad regex"},
		{"two cases with one name", "- {name: a, task: t, expect: PASS}\n- {name: a, task: t, expect: FAIL}\n", "appears twice"},
		{"broken JSON lines", `{"task": "t", "expect": "PASS"` + "\n", "case 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCases([]byte(tt.text), ".")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one saying %q", err, tt.want)
			}
			// The command prints it after the file's name: no package
			// name in the middle ("x.yaml: eval: cases: …").
			if err != nil && strings.Contains(err.Error(), "eval:") {
				t.Errorf("err = %v carries the package's name", err)
			}
		})
	}
}

func TestLoadCasesFindsSchemasBesideTheFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("s.json", `{"type":"object"}`)
	write("cases.yaml", "- {task: t, expect: PASS, checks: ['json:out.json:s.json']}\n")
	if _, err := LoadCases(filepath.Join(dir, "cases.yaml")); err != nil {
		t.Errorf("a schema beside the case file was not found: %v", err)
	}
	write("bad.yaml", "- {task: t, expect: PASS, checks: ['json:out.json:missing.json']}\n")
	if _, err := LoadCases(filepath.Join(dir, "bad.yaml")); !errors.Is(err, verify.ErrBadRule) {
		t.Errorf("err = %v, want a bad-rule error", err)
	}
}
