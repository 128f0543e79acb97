package claims

import (
	"strings"
	"testing"
)

// TestOnlyATotalIsCheckedAgainstTheFile holds the shapes in which a
// figure near a file is its size now, and is checked: true when it is,
// false when it is not.
func TestOnlyATotalIsCheckedAgainstTheFile(t *testing.T) {
	notes := map[string]string{"notes.md": lines(30)}
	runClaimTests(t, []claimTest{
		{"a copula", run{files: notes}, "notes.md is 30 lines.", []string{"lines notes.md true"}},
		{"now has, after a change in another clause", run{files: notes}, "Added 20 lines to notes.md; it now has 50 lines.",
			[]string{"written notes.md true", "lines notes.md unchecked", "lines notes.md false"}},
		{"which now totals, in a clause of its own", run{files: map[string]string{"faq.md": words(500)}},
			"Added 5 questions to faq.md, which now totals 900 words.", []string{"written faq.md true", "words faq.md false"}},
		{"from … to, after a change verb", run{files: notes}, "notes.md grew from 20 to 45 lines.", []string{"lines notes.md false"}},
		{"a parenthesis after a file the run made", run{files: map[string]string{"api.md": words(800)}},
			"Created api.md (1,250 words) covering every endpoint.", []string{"written api.md true", "words api.md false"}},
		{"with, after a verb that made the file", run{files: map[string]string{"hello.py": lines(10)}},
			"I have successfully created the file `hello.py` with 10 lines of code.", []string{"written hello.py true", "lines hello.py true"}},
		{"a figure made into the file", run{files: map[string]string{"r.json": `[1,2,3]`}},
			"Extracted 25 records into r.json.", []string{"items r.json false"}},
		{"another count before it in a list", run{files: map[string]string{"s.md": words(180)}},
			"s.md is 3 paragraphs, 180 words.", []string{"words s.md true"}},
		{"a table's column of sizes", run{files: map[string]string{"a.go": lines(400), "b.go": lines(100)}},
			"| File | Size |\n| --- | --- |\n| `a.go` | 400 lines |\n| `b.go` | 350 lines |", []string{"lines a.go true", "lines b.go false"}},
		{"共 after a change, in its own clause", run{files: map[string]string{"n.md": lines(40)}},
			"n.md 新增了 10 行，现在共有 60 行。", []string{"lines n.md unchecked", "lines n.md false", "written n.md true"}},
		{"实际有 after the task's figure", run{files: map[string]string{"post.md": zh(4230)}},
			"任务要求至少 4000 字，post.md 实际有 4,230 字。", []string{"chars post.md unchecked", "chars post.md true"}},
		{"comes in at, of the final version of the file", run{files: map[string]string{"post.md": words(1600)}},
			"The final version of post.md comes in at 2,450 words.", []string{"words post.md false"}},
		{"itself", run{files: map[string]string{"r.sh": lines(35)}},
			"The script prints 20 lines of output; r.sh itself is 35 lines.", []string{"lines r.sh true"}},
		{"从 … 精简到了", run{files: map[string]string{"main.go": lines(410)}}, "把 main.go 从 900 行精简到了 400 行左右。", []string{"lines main.go unchecked", "lines main.go true"}},
		{"another count in Chinese", run{files: map[string]string{"t.go": lines(180)}}, "新建了 t.go，共 12 个测试用例，180 行。",
			[]string{"written t.go true", "lines t.go true"}},
		{"down to N from the size before", run{files: map[string]string{"intro.md": words(610)}},
			"Trimmed `intro.md` down to roughly 600 words from about 1,100.", []string{"written intro.md true", "words intro.md true"}},
		{"a new file under a heading of changes", run{files: map[string]string{"retry.go": lines(64)}},
			"Summary of changes:\n- `retry.go` (new, 64 lines): backoff\n", []string{"lines retry.go true", "written retry.go true"}},
		{"keeps, after the size before", run{files: map[string]string{"utils.go": lines(200), "x.go": lines(200)}},
			"Split the 600-line utils.go into 3 files; utils.go keeps 200 lines.", []string{"lines utils.go unchecked", "lines utils.go true"}},
	})
}

// TestNotTheFilesSizeIsUnchecked holds the false FAILs of the held-out
// sets: figures near a file that are not its size now — a change, the
// size before, a part, the task's figure — are unchecked, for the judge,
// and never false.
func TestNotTheFilesSizeIsUnchecked(t *testing.T) {
	notes := map[string]string{"notes.md": lines(54)}
	post := map[string]string{"post.md": words(1700)}
	unchecked := func(kind, p string) []string { return []string{kind + " " + p + " unchecked"} }
	runClaimTests(t, []claimTest{
		{"a change: updated with N entries", run{files: map[string]string{"CHANGELOG.md": "## 1.2.0\n- a\n- b\n- c\n\n## 1.1.0\n- d\n"}},
			"Updated CHANGELOG.md with 3 entries.", []string{"written CHANGELOG.md true", "items CHANGELOG.md unchecked"}},
		{"a change in Chinese: 修改了 3 行，新增 5 行", run{files: map[string]string{"notes.md": lines(50)}},
			"在 notes.md 中修改了 3 行，新增 5 行。", []string{"lines notes.md unchecked", "lines notes.md unchecked", "written notes.md true"}},
		{"a change: a delete verb in a file is an edit", run{files: map[string]string{"main.go": lines(200)}},
			"删除了 main.go 中 15 行冗余代码。", []string{"written main.go true", "lines main.go unchecked"}},
		{"a change: added N lines", run{files: notes}, "I added 12 lines to notes.md.", []string{"written notes.md true", "lines notes.md unchecked"}},
		{"a change: a column of added lines", run{files: map[string]string{"a.go": lines(300)}},
			"| File | Added |\n| --- | --- |\n| `a.go` | 85 lines |", unchecked("lines", "a.go")},
		{"a change: the size of what an aider-style item added", run{files: map[string]string{"app.py": lines(200)}},
			"1. In `app.py`, added a `--verbose` flag (about 12 lines).", unchecked("lines", "app.py")},
		{"the size before: the N-line file that was split", run{files: map[string]string{"utils.go": lines(200)}},
			"Split the 600-line utils.go into 3 files.", unchecked("lines", "utils.go")},
		{"the size before: previously N", run{files: notes}, "notes.md (previously 20 lines) now has 54 lines.", []string{"lines notes.md true"}},
		{"the size before: was N KB", run{files: map[string]string{"logo.svg": strings.Repeat("x", 2148)}},
			"logo.svg is now 2.1 KB (was 9 KB).", []string{"bytes logo.svg true", "bytes logo.svg unchecked"}},
		{"the size before in Chinese: 原来", run{files: map[string]string{"README.md": lines(120)}},
			"原来的 README.md 有 300 行，现在只有 120 行。", []string{"lines README.md true"}},
		{"a part: an intro and a body", run{files: post},
			"post.md now has an intro of about 200 words and a body of 1,500 words.", []string{"words post.md unchecked", "words post.md unchecked"}},
		{"a part: the run function in the file", run{files: map[string]string{"main.go": lines(300)}},
			"The run function in main.go is now 40 lines long, down from 120.", unchecked("lines", "main.go")},
		{"a part: the longest function", run{files: map[string]string{"main.go": lines(200)}},
			"The longest function in main.go is 45 lines.", unchecked("lines", "main.go")},
		{"a part: each entry", run{files: map[string]string{"log.md": lines(90)}},
			"Each entry in log.md is under 120 characters.", unchecked("chars", "log.md")},
		{"a part in Chinese: 引言约 200 字", run{files: map[string]string{"post.md": zh(1750)}},
			"post.md 已完成：引言约 200 字，正文约 1500 字。", []string{"chars post.md unchecked", "chars post.md unchecked"}},
		{"a part without a file name: the post has an intro of N", run{files: post},
			"The post has an intro of 200 words.", unchecked("words", "post.md")},
		{"a part: what a verb put into the file is the subject", run{files: map[string]string{"CHANGELOG.md": lines(40)}},
			"The changelog entry I added to CHANGELOG.md is 6 lines.", []string{"written CHANGELOG.md true", "lines CHANGELOG.md unchecked"}},
		{"a change: N lines shorter", run{files: map[string]string{"README.md": lines(300)}},
			"README.md is 80 lines shorter.", unchecked("lines", "README.md")},
		{"a change: N lines of changes", run{files: map[string]string{"main.go": lines(300)}},
			"main.go has 40 lines of changes.", unchecked("lines", "main.go")},
		{"a part: the N lines moved from another file", run{files: map[string]string{"util.go": lines(300), "main.go": lines(100)}},
			"util.go now holds the 40 lines moved from main.go.", unchecked("lines", "util.go")},
		{"several files: a sum", run{files: map[string]string{"a.md": words(900), "b.md": words(900)}},
			"a.md and b.md total 1,800 words.", unchecked("words", "b.md")},
		{"several files in Chinese: a sum", run{files: map[string]string{"a.md": lines(300), "b.md": lines(300)}},
			"a.md 和 b.md 共 600 行。", unchecked("lines", "b.md")},
		{"several files: a count of files before the figure", run{files: map[string]string{"a.md": lines(300)}, changed: []string{"a.md"}},
			"Total: 3 files, 420 lines.", unchecked("lines", "a.md")},
		{"a part: N lines of something", run{files: map[string]string{"notes.md": lines(77)}},
			"notes.md has 12 lines of summary and the rest is detail.", unchecked("lines", "notes.md")},
		{"a part: N lines in its summary", run{files: map[string]string{"notes.md": lines(77)}},
			"notes.md has 12 lines in its summary.", unchecked("lines", "notes.md")},
		{"a part: a 12-line table in the file", run{files: map[string]string{"notes.md": lines(77)}},
			"notes.md contains a 12-line table.", unchecked("lines", "notes.md")},
		{"a part: a summary made into another file", run{files: map[string]string{"notes.md": lines(77)}},
			"Wrote a 12-line summary into notes.md.", []string{"written notes.md true", "lines notes.md unchecked"}},
		{"a part in Chinese: 12 行的摘要", run{files: map[string]string{"notes.md": lines(77)}},
			"notes.md 包含 12 行的摘要。", unchecked("lines", "notes.md")},
		{"a change: a bare size under a heading of changes", run{files: map[string]string{"notes.md": lines(77)}},
			"Changes:\n- notes.md: 12 lines\n", []string{"lines notes.md unchecked", "written notes.md true"}},
		{"a part: the guide, when the run changed another file", run{files: map[string]string{"README.md": words(300)}},
			"Updated README.md to link the guide; the guide now has 9 sections and 1,200 words.",
			[]string{"written README.md true", "words unchecked"}},
		{"a line number in Chinese is no count", run{files: map[string]string{"c.yaml": lines(40)}},
			"修改了 c.yaml 第 12 行的超时设置。", []string{"written c.yaml true"}},
	})
}
