package claimeval

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/verify/claims"
)

// TestShippedCasesMeetTheTargets is the eval of issue 27, run as a test:
// no false FAIL on an answer without a false claim (a false FAIL costs the
// worker a round), and at least 0.9 recall on false count and file
// claims.
func TestShippedCasesMeetTheTargets(t *testing.T) {
	cases := DefaultCases()
	rep, err := Run(context.Background(), claims.Config{}, cases)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if rep.FalseFailCases != 0 || rep.All.FalseFails != 0 {
		t.Errorf("%d cases without a false claim failed (%d false FAILs in all):\n%s", rep.FalseFailCases, rep.All.FalseFails, text.String())
	}
	for _, g := range []string{"count", "file"} {
		if r := rep.ByGroup[g].Recall(); r < 0.9 {
			t.Errorf("recall on false %s claims %.2f, want at least 0.9:\n%s", g, r, text.String())
		}
	}
	t.Logf("\n%s", text.String())
}

// TestShippedCasesCoverTheIssue: at least 60 cases, in English and
// Chinese, with true, false and unchecked claims and answers whose
// figures are not about files.
func TestShippedCasesCoverTheIssue(t *testing.T) {
	cases := DefaultCases()
	if len(cases) < 60 {
		t.Errorf("%d cases, want at least 60", len(cases))
	}
	seen := map[string]int{}
	for _, c := range cases {
		seen["lang "+c.Lang]++
		if len(c.Expect) == 0 {
			seen["no claim"]++
		}
		for _, e := range c.Expect {
			seen[e.Verdict]++
			seen[kinds[e.Kind]+" "+e.Verdict]++
		}
	}
	for _, want := range []string{"lang en", "lang zh", "no claim", "true", "false", "unchecked",
		"count true", "count false", "file true", "file false", "command true", "command false", "answer true", "answer false"} {
		if seen[want] == 0 {
			t.Errorf("no case of %q: %v", want, seen)
		}
	}
}

func TestReportScoresEachFinding(t *testing.T) {
	cases, err := ParseCases([]byte(`
- name: caught
  lang: en
  task: t
  answer: a.md has 9 lines.
  files: [{path: a.md, content: "x\n"}]
  expect: [{kind: lines, path: a.md, verdict: "false"}]
- name: missed
  lang: zh
  task: t
  answer: 写好了。
  expect: [{kind: written, path: b.md, verdict: "false"}]
- name: wrongly failed
  lang: en
  task: t
  answer: c.md has 2 lines.
  files: [{path: c.md, content: "x\n"}]
  expect: []
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), claims.Config{}, cases)
	if err != nil {
		t.Fatal(err)
	}
	count, file := rep.ByGroup["count"], rep.ByGroup["file"]
	if count.False != 1 || count.Caught != 1 || count.FalseFails != 1 || file.False != 1 || file.Caught != 0 {
		t.Errorf("count %+v, file %+v", *count, *file)
	}
	if rep.FalseFailCases != 1 || rep.WithFalse != 2 || count.Precision() != 0.5 || file.Recall() != 0 {
		t.Errorf("report %+v", rep)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{"3 cases (2 with a false claim, 1 without)", "False FAILs on the 1 case without a false claim: 1.",
		"missed", "want false, got missing", "wrongly failed", "want (no claim), got false"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
}

func TestParseCasesRefusesBadCases(t *testing.T) {
	for name, text := range map[string]string{
		"an empty file":        "",
		"a misspelt field":     "- {name: a, lang: en, answer: x, expected: []}\n",
		"no name":              "- {lang: en, answer: x, expect: []}\n",
		"no answer":            "- {name: a, lang: en, expect: []}\n",
		"an unknown language":  "- {name: a, lang: fr, answer: x, expect: []}\n",
		"an unknown kind":      "- {name: a, lang: en, answer: x, expect: [{kind: vibes, verdict: 'true'}]}\n",
		"an unknown verdict":   "- {name: a, lang: en, answer: x, expect: [{kind: chars, verdict: maybe}]}\n",
		"a path outside":       "- {name: a, lang: en, answer: x, files: [{path: ../x}], expect: []}\n",
		"two cases, one name":  "- {name: a, lang: en, answer: x, expect: []}\n- {name: a, lang: en, answer: y, expect: []}\n",
		"a deleted path above": "- {name: a, lang: en, answer: x, deleted: [/etc/passwd], expect: []}\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseCases([]byte(text)); err == nil {
				t.Error("accepted")
			}
		})
	}
	if _, err := LoadCases("testdata/nope.yaml"); err == nil || errors.Is(err, ErrUsage) {
		t.Errorf("a missing file: %v", err)
	}
}
