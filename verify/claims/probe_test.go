package claims

import "testing"

// TestSentencesNearAFileThatAreNotItsSizeAreNeverFalse probes sentences
// whose figures are a change, a part, the size before, or the true size
// now, about files whose sizes differ from every figure: none may be
// failed (a false FAIL costs the worker a round).
func TestSentencesNearAFileThatAreNotItsSizeAreNeverFalse(t *testing.T) {
	files := map[string]string{"notes.md": lines(77), "post.md": words(1234), "main.go": lines(333), "data.csv": lines(51), "README.md": lines(88)}
	for _, a := range []string{
		"notes.md: the summary section is 12 lines.",
		"In notes.md, the summary is 12 lines.",
		"notes.md's summary is 12 lines.",
		"notes.md now has a 12-line summary at the top.",
		"The top 12 lines of notes.md are the summary.",
		"notes.md grew by 12 lines.",
		"notes.md is 12 lines over the limit.",
		"notes.md got 12 lines longer.",
		"notes.md: 12 lines added, 3 removed.",
		"notes.md (12 lines changed).",
		"notes.md (diff: 12 lines).",
		"All 12 lines I added to notes.md are sorted.",
		"Appended a 12-line summary to notes.md.",
		"post.md has 300 words more than before.",
		"post.md: intro 200 words, body 1,000 words.",
		"post.md — intro: 200 words; body: 1,000 words.",
		"In post.md I cut 300 words.",
		"post.md lost 300 words.",
		"post.md gained 300 words.",
		"post.md is down 300 words.",
		"post.md is 300 words under budget.",
		"post.md (1,234 words, was 1,534 words).",
		"post.md's conclusion is 150 words.",
		"Wrote 300 words of conclusion in post.md.",
		"Rewrote 300 words in post.md.",
		"main.go: refactored 120 lines.",
		"main.go went through 3 rounds; final size 333 lines.",
		"main.go, 40 lines in the handler, 293 elsewhere.",
		"Tests in main_test.go cover 40 lines of main.go.",
		"main.go has 12 functions, the longest is 80 lines.",
		"data.csv now has 50 rows and a header.",
		"data.csv: 50 records + header row.",
		"data.csv has 10 rows per page.",
		"README.md: added a 20-line FAQ.",
		"README.md — 20 lines of FAQ added.",
		"README.md's install section went from 40 to 12 lines.",
		"README.md 的安装部分从 40 行缩减到 12 行。",
		"README.md 新增 FAQ，共 20 行。",
		"README.md 里的表格有 20 行。",
		"README.md 现有 88 行，其中 FAQ 占 20 行。",
		"post.md 修改后共 1234 个单词。",
		"post.md 删掉了 300 个单词，剩余 1234 个单词。",
		"The diff for main.go is 40 lines.",
		"The patch to main.go is 40 lines.",
		"Only 40 lines of main.go changed.",
		"About 40 lines in main.go were touched.",
	} {
		for _, c := range claimsOf(t, run{files: files}, a) {
			if c.Verdict == "false" {
				t.Errorf("%q failed: %s %s %q", a, c.Kind, c.Path, c.Feedback)
			}
		}
	}
}
