package verify

import "testing"

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name   string
		reply  string
		pass   bool
		reason string
	}{
		{"PASS alone passes, reason from the next line", "PASS\nAll five steps are present.", true, "All five steps are present."},
		{"bold PASS passes", "**PASS**\nComplete.", true, "Complete."},
		{"italic PASS passes", "*PASS*", true, ""},
		{"underscored PASS passes", "__PASS__: the post is long enough", true, "the post is long enough"},
		{"PASS in backticks passes", "`PASS`", true, ""},
		{"PASS with a full stop passes", "PASS.", true, ""},
		{"PASS with a dash and reason passes", "PASS - ok", true, "ok"},
		{"a leading Verdict label is allowed", "Verdict: **PASS**\nfine", true, "fine"},
		{"leading blank lines are skipped", "\n\n  PASS\n", true, ""},
		{"lowercase pass passes: the word, not its case, is the verdict", "pass\nlooks complete", true, "looks complete"},
		{"PASSABLE is not PASS", "PASSABLE\nmostly there", false, NoVerdict},
		{"PASSED is not PASS", "PASSED", false, NoVerdict},
		{"an empty reply fails with no verdict", "", false, NoVerdict},
		{"a blank reply fails with no verdict", " \n\t\n", false, NoVerdict},
		{"chatter before the verdict is no verdict", "Let me check.\nPASS", false, NoVerdict},
		{"FAIL with a reason on its line", "FAIL: only 3 of the 5 steps", false, "only 3 of the 5 steps"},
		{"FAIL with the reason on the next line", "FAIL\nonly 3 of the 5 steps", false, "only 3 of the 5 steps"},
		{"bold FAIL with a colon outside", "**FAIL**: tests were skipped", false, "tests were skipped"},
		{"FAIL without a reason says so", "FAIL", false, "the judge gave no reason"},
		{"CRLF line ends are read", "FAIL\r\nTODO left in main.go\r\n", false, "TODO left in main.go"},
		{"the rest of the line and the next lines are the reason", "FAIL — only 3 of 5;\nstep 4 is missing\n\n- and step 5", false, "only 3 of 5; step 4 is missing - and step 5"},
		{"a bold Verdict label with the verdict after it", "**Verdict:** FAIL, the tests were skipped", false, "the tests were skipped"},
		{"emphasis around the whole line", "**PASS: complete**", true, "complete"},
		{"an exclamation mark ends the word", "FAIL! nothing was written", false, "nothing was written"},
		// Regression (issue 11): each of these passed.
		{"PASS/FAIL: FAIL is no verdict", "PASS/FAIL: FAIL", false, NoVerdict},
		{"Pass or fail: FAIL is no verdict", "Pass or fail: FAIL", false, NoVerdict},
		{"PASS? No. FAIL is no verdict", "PASS? No. FAIL", false, NoVerdict},
		{"Pass rate 2/5 - FAIL is no verdict", "Pass rate 2/5 - FAIL", false, NoVerdict},
		{"a word after PASS without punctuation is no verdict", "PASS the post is long enough", false, NoVerdict},
		{"a Verdict heading without a colon is no verdict", "## Verdict\nPASS", false, NoVerdict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pass, reason := ParseVerdict(tt.reply)
			if pass != tt.pass || reason != tt.reason {
				t.Errorf("ParseVerdict(%q) = %v, %q; want %v, %q", tt.reply, pass, reason, tt.pass, tt.reason)
			}
		})
	}
}

func TestReadVerdictTellsMalformedFromFail(t *testing.T) {
	if _, _, ok := ReadVerdict("PASS/FAIL: FAIL"); ok {
		t.Error("a malformed verdict was read as one")
	}
	if pass, reason, ok := ReadVerdict("FAIL: short"); !ok || pass || reason != "short" {
		t.Errorf("FAIL: short = %v, %q, %v", pass, reason, ok)
	}
}
