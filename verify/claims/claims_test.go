package claims

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/verify"
)

// zh is a Chinese text of exactly n characters, as the demo's post.
func zh(n int) string {
	const para = "在智能体的世界里，错误是排好班的日常工作。模型会自信地宣布完成，而工作其实只做了一半。\n"
	return string([]rune(strings.Repeat(para, n/len([]rune(para))+1))[:n])
}

// words is a text of n words.
func words(n int) string { return strings.Repeat("word ", n) }

// lines is a text of n lines.
func lines(n int) string { return strings.Repeat("a line\n", n) }

// found renders claims as "kind path verdict", in order.
func found(cs []verify.Claim) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, strings.TrimSpace(c.Kind+" "+c.Path)+" "+string(c.Verdict))
	}
	return out
}

type claimTest struct {
	name   string
	run    run
	answer string
	want   []string
}

func runClaimTests(t *testing.T, tests []claimTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := found(claimsOf(t, tt.run, tt.answer))
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("claims of %q (-want +got):\n%s", tt.answer, diff)
			}
		})
	}
}

func TestCountClaims(t *testing.T) {
	post := map[string]string{"post.md": zh(3341)}
	runClaimTests(t, []claimTest{
		{"the seed's 3,847 for a post of 3,341 is false, though no file is named",
			run{files: post}, "Done. Total length: 3,847 characters, meets the requirement.", []string{"chars post.md false"}},
		{"a true count of characters", run{files: post}, "post.md has 3,341 characters.", []string{"chars post.md true"}},
		{"a count that counts the trailing newline another way is true",
			run{files: map[string]string{"a.md": "hello\n"}}, "a.md is 5 characters.", []string{"chars a.md true"}},
		{"words, true and false", run{files: map[string]string{"a.md": words(812), "b.md": words(640)}},
			"a.md is 812 words and b.md is 1,012 words.", []string{"words a.md true", "words b.md false"}},
		{"lines, true and false", run{files: map[string]string{"a.txt": lines(42), "b.txt": lines(20)}},
			"a.txt has 42 lines; b.txt has 51 lines.", []string{"lines a.txt true", "lines b.txt false"}},
		{"bytes, true and false", run{files: map[string]string{"a.bin": strings.Repeat("x", 512), "b.bin": strings.Repeat("x", 100)}},
			"a.bin is 512 bytes. b.bin is 2,048 bytes.", []string{"bytes a.bin true", "bytes b.bin false"}},
		{"a size in KB is a round figure", run{files: map[string]string{"logo.svg": strings.Repeat("x", 1180)}},
			"logo.svg is now 1.2 KB, down from 9 KB.", []string{"bytes logo.svg true", "bytes logo.svg unchecked"}},
		{"steps of a Markdown list, true and false",
			run{files: map[string]string{"docs/install.md": "# Install\n1. a\n2. b\n3. c\n", "docs/all.md": "1. a\n2. b\n3. c\n4. d\n5. e\n"}},
			"docs/install.md has all 5 steps. docs/all.md has all 5 steps.", []string{"items docs/install.md false", "items docs/all.md true"}},
		{"rows of a CSV, with or without its header", run{files: map[string]string{"users.csv": "id\n1\n2\n3\n"}},
			"users.csv has 3 rows.", []string{"items users.csv true"}},
		{"entries of a JSON list", run{files: map[string]string{"l.json": `["a","b"]`}},
			"l.json has 12 entries.", []string{"items l.json false"}},
		{"a file that does not exist has no such size", run{files: map[string]string{"a.md": "x"}},
			"notes.md has 3 lines.", []string{"lines notes.md false"}},
		{"the file of the sentence before is 'it'", run{files: map[string]string{"essay.md": words(812)}},
			"I wrote essay.md. It is 812 words long.", []string{"written essay.md true", "words essay.md true"}},
		{"a size without a file name, with two files changed, is unchecked",
			run{files: map[string]string{"a.md": words(5), "b.md": words(5)}}, "Total length: 3,000 words.", []string{"words unchecked"}},
		{"a name two files end with is unchecked",
			run{files: map[string]string{"a/config.yaml": lines(3), "b/config.yaml": lines(4)}}, "config.yaml has 12 lines.", []string{"lines config.yaml unchecked"}},
		{"a file with nothing to count steps by is unchecked",
			run{files: map[string]string{"guide.md": "First tag it. Then build it.\n"}}, "guide.md covers all 4 steps.", []string{"items guide.md unchecked"}},
	})
}

func TestApproximateAndBoundedClaims(t *testing.T) {
	files := map[string]string{"post.md": zh(3341)}
	runClaimTests(t, []claimTest{
		{"about 4,000 is 16% off: false", run{files: files}, "post.md is about 4,000 characters.", []string{"chars post.md false"}},
		{"about 3,500 is within a tenth: true", run{files: files}, "post.md is about 3,500 characters.", []string{"chars post.md true"}},
		{"~3.4k is true", run{files: files}, "post.md: ~3.4k chars.", []string{"chars post.md true"}},
		{"a round figure reads as an estimate", run{files: files}, "post.md is 3,300 characters.", []string{"chars post.md true"}},
		{"over 4,000 is false", run{files: files}, "post.md is over 4,000 characters.", []string{"chars post.md false"}},
		{"over 3,000 is true", run{files: files}, "post.md is well over 3,000 characters.", []string{"chars post.md true"}},
		{"at least 5 is true of 5", run{files: map[string]string{"a.md": lines(5)}}, "a.md has at least 5 lines.", []string{"lines a.md true"}},
		{"5+ is false of 4", run{files: map[string]string{"a.md": lines(4)}}, "a.md has 5+ lines.", []string{"lines a.md false"}},
		{"under 200 is false of 260", run{files: map[string]string{"s.md": words(260)}}, "s.md is under 200 words.", []string{"words s.md false"}},
		{"no more than 300 is true of 260", run{files: map[string]string{"s.md": words(260)}}, "s.md is no more than 300 words.", []string{"words s.md true"}},
		{"a range holds", run{files: map[string]string{"a.md": words(172)}}, "a.md is 150–200 words.", []string{"words a.md true"}},
		{"between 10 and 20 lines is false of 25", run{files: map[string]string{"a.md": lines(25)}}, "a.md is between 10 and 20 lines.", []string{"lines a.md false"}},
		{"the figure after 'from … to' is the claim", run{files: map[string]string{"p.md": strings.Repeat("x", 3900)}},
			"Reduced p.md from 5,000 to 3,900 characters.", []string{"chars p.md true"}},
	})
}

func TestChineseClaims(t *testing.T) {
	files := map[string]string{"post.md": zh(3341)}
	runClaimTests(t, []claimTest{
		{"字 without a file name", run{files: files}, "已完成，全文共3847字，符合要求。", []string{"chars post.md false"}},
		{"字 with the file named", run{files: files}, "post.md 共 3341 字。", []string{"chars post.md true"}},
		{"约 is about", run{files: files}, "文章约4000字。", []string{"chars post.md false"}},
		{"以上 is at least", run{files: files}, "正文3000字以上。", []string{"chars post.md true"}},
		{"多 is over", run{files: files}, "post.md 有3000多字。", []string{"chars post.md true"}},
		{"行", run{files: map[string]string{"n.md": lines(120)}}, "n.md 共 120 行。", []string{"lines n.md true"}},
		{"个步骤 and a Chinese numeral", run{files: map[string]string{"docs/setup.md": "1. a\n2. b\n3. c\n"}},
			"docs/setup.md 包含五个步骤。", []string{"items docs/setup.md false"}},
		{"步", run{files: map[string]string{"docs/setup.md": "1. a\n2. b\n3. c\n"}}, "docs/setup.md 共 3 步。", []string{"items docs/setup.md true"}},
		{"个 with the noun the task asked for",
			run{task: "列出10条产品想法，写入 ideas.md。", files: map[string]string{"ideas.md": "1. a\n2. b\n3. c\n4. d\n5. e\n6. f\n7. g\n8. h\n9. i\n10. j\n"}},
			"已在 ideas.md 中列出 10 条想法。", []string{"items ideas.md true"}},
		{"第42行 is a line number", run{files: map[string]string{"p.go": lines(3)}}, "修复了第42行的问题，耗时3分钟。", nil},
		{"要求 makes a figure the task's", run{files: map[string]string{"post.md": zh(4210)}}, "要求4000字，目前正文4210字。", []string{"chars post.md true"}},
	})
}

func TestChangeClaims(t *testing.T) {
	runClaimTests(t, []claimTest{
		{"created and updated, both true",
			run{files: map[string]string{"docs/install.md": "x", "README.md": "y"}},
			"Created docs/install.md and updated README.md with a link to it.", []string{"written docs/install.md true", "written README.md true"}},
		{"a file the run did not change is false", run{files: map[string]string{"CHANGELOG.md": "x"}, changed: []string{}},
			"Updated CHANGELOG.md with the new entry.", []string{"written CHANGELOG.md false"}},
		{"a file that does not exist is false", run{files: map[string]string{"a.md": "x"}},
			"I wrote the report to report.md.", []string{"written report.md false"}},
		{"a write of content already there counts", run{files: map[string]string{"out.txt": "hello\n"}, changed: []string{},
			ran: []verify.Ran{{Tool: "write_file", Path: "out.txt", OK: true}}}, "Wrote out.txt.", []string{"written out.txt true"}},
		{"a list under a heading takes its verb",
			run{files: map[string]string{"docs/api.md": "x"}}, "Files created:\n- `docs/api.md`\n- `docs/faq.md`\n",
			[]string{"written docs/api.md true", "written docs/faq.md false"}},
		{"a list item described after a colon was written",
			run{files: map[string]string{"api/h.go": "x"}}, "- `api/h.go`: added input validation\n", []string{"written api/h.go true"}},
		{"an item whose description removes something was edited, not deleted",
			run{files: map[string]string{"README.md": "x"}}, "- README.md: removed the old section\n", []string{"written README.md true"}},
		{"deleted, true", run{files: map[string]string{}, changed: []string{"old.md"}}, "Deleted old.md.", []string{"deleted old.md true"}},
		{"deleted but still there, false", run{files: map[string]string{"tmp/s.txt": "x"}, changed: []string{}}, "Deleted tmp/s.txt.", []string{"deleted tmp/s.txt false"}},
		{"a folder deleted", run{changed: []string{"legacy/a.go", "legacy/b.go"}}, "I deleted the unused `legacy/` directory.", []string{"deleted legacy true"}},
		{"removed from a file is an edit", run{files: map[string]string{"main.go": "x"}}, "Removed the TODO from main.go.", []string{"written main.go true"}},
		{"renamed: the old name deleted, the new written", run{files: map[string]string{"notes.md": "x"}, changed: []string{"notes.md", "notes.txt"}},
			"Renamed notes.txt to notes.md.", []string{"deleted notes.txt true", "written notes.md true"}},
		{"copied: only the copy is claimed", run{files: map[string]string{"t.md": "x", "new.md": "y"}, changed: []string{"new.md"}},
			"Copied t.md to new.md.", []string{"written new.md true"}},
		{"a file only mentioned is not claimed", run{files: map[string]string{"docs.md": "x", "README.md": "y"}, changed: []string{"docs.md"}},
			"Updated docs.md to mention README.md.", []string{"written docs.md true"}},
		{"a file a test was added for is not claimed", run{files: map[string]string{"p.go": "x", "p_test.go": "y"}, changed: []string{"p_test.go"}},
			"Added a test for p.go.", nil},
		{"a name without its folder is found among the changed", run{files: map[string]string{"docs/install.md": "x"}},
			"Wrote install.md with the steps.", []string{"written docs/install.md true"}},
		{"Chinese: 创建 and 更新", run{files: map[string]string{"docs/install.md": "x", "README.md": "y"}, changed: []string{"docs/install.md"}},
			"已创建 docs/install.md，并更新了 README.md。", []string{"written docs/install.md true", "written README.md false"}},
		{"Chinese: 删除", run{changed: []string{"old.md"}}, "删除了 old.md。", []string{"deleted old.md true"}},
		{"Node.js is no file", run{}, "Upgraded to Node.js 20 and Vue.js 3.", nil},
	})
}

func TestCommandClaims(t *testing.T) {
	ok := func(cmd string) verify.Ran {
		return verify.Ran{Tool: "run_command", Command: cmd, OK: true, Status: "exit status 0"}
	}
	failed := func(cmd string) verify.Ran {
		return verify.Ran{Tool: "run_command", Command: cmd, Status: "exit status 1"}
	}
	runClaimTests(t, []claimTest{
		{"tests that ran and passed", run{ran: []verify.Ran{ok("go test ./...")}}, "All tests pass.", []string{"tests true"}},
		{"tests that never ran are a false claim", run{ran: []verify.Ran{ok("cat main.go")}}, "All tests pass.", []string{"tests false"}},
		{"tests whose last run failed", run{ran: []verify.Ran{failed("go test ./...")}}, "The tests pass now.", []string{"tests false"}},
		{"the last run decides", run{ran: []verify.Ran{failed("go test ./..."), ok("go test ./...")}}, "After the fix, all tests pass.", []string{"tests true"}},
		{"a build that ran", run{ran: []verify.Ran{ok("go build ./...")}}, "`go build ./...` succeeds.", []string{"build true"}},
		{"a build that never ran", run{ran: []verify.Ran{ok("ls")}}, "The build succeeds.", []string{"build false"}},
		{"go test builds the code", run{ran: []verify.Ran{ok("go test ./...")}}, "Everything compiles and the tests pass.", []string{"build true", "tests true"}},
		{"npm test does not build it", run{ran: []verify.Ran{ok("npm test")}}, "The build completes successfully.", []string{"build false"}},
		{"a linter that passed", run{ran: []verify.Ran{ok("golangci-lint run ./...")}}, "golangci-lint reports no issues.", []string{"lint true"}},
		{"a linter that failed", run{ran: []verify.Ran{failed("npx eslint src")}}, "No lint errors.", []string{"lint false"}},
		{"make's target says what it runs", run{ran: []verify.Ran{ok("make test")}}, "make test passes.", []string{"tests true"}},
		{"a tool the check cannot see into leaves it unchecked", run{ran: []verify.Ran{{Tool: "mcp__ci__run"}}}, "Tests pass.", []string{"tests unchecked"}},
		{"a script the check cannot classify leaves it unchecked", run{ran: []verify.Ran{ok("./ci.sh")}}, "All tests pass.", []string{"tests unchecked"}},
		{"a cat of a test file runs no test", run{ran: []verify.Ran{failed("cat tests/a.txt")}}, "All tests pass.", []string{"tests false"}},
		{"Chinese: 测试通过", run{ran: []verify.Ran{ok("python -m pytest -q")}}, "所有测试均通过。", []string{"tests true"}},
		{"Chinese: never ran", run{}, "已修复，测试全部通过。", []string{"tests false"}},
		{"a failing compound line does not say which failed", run{ran: []verify.Ran{failed("go build ./... && go test ./...")}}, "The build succeeds.", []string{"build unchecked"}},
		{"not run is no claim", run{}, "I could not run the tests, since there is no Go toolchain.", nil},
		{"a report of failures is no claim that they pass", run{ran: []verify.Ran{failed("pytest")}}, "12 passed, 2 failed; the two need a fix upstream.", nil},
	})
	t.Run("unknown commands leave it unchecked", func(t *testing.T) {
		in := setup(t, run{}, "All tests pass.")
		in.Ran = nil
		if got := found(New(Config{}).Claims(context.Background(), in)); !cmp.Equal(got, []string{"tests unchecked"}) {
			t.Errorf("claims = %v, want the tests claim unchecked", got)
		}
	})
}

func TestAnswerItemClaims(t *testing.T) {
	five := "Here are 5 risks:\n1. a\n2. b\n3. c\n4. d\n5. e\n"
	four := "Here are 5 risks:\n1. a\n2. b\n3. c\n4. d\n"
	runClaimTests(t, []claimTest{
		{"the answer lists the 5 it says", run{task: "List 5 risks of running agents."}, five, []string{"answer-items true"}},
		{"the answer lists 4 of the 5 it says", run{task: "List 5 risks of running agents."}, four, []string{"answer-items false"}},
		{"a count the task did not ask for is no claim", run{task: "Tell me about risks."}, four, nil},
		{"Chinese", run{task: "给出五条建议。"}, "以下是五条建议：\n- a\n- b\n- c\n- d\n", []string{"answer-items false"}},
	})
}

func TestNoClaim(t *testing.T) {
	files := map[string]string{"post.md": zh(3341), "main.go": lines(200), "log.md": strings.Repeat("a log entry of some length\n", 90)}
	for _, answer := range []string{
		"Should post.md be 4,000 characters?",
		"Next I will create docs/api.md, which will end up around 2,000 characters.",
		"If you need more, post.md could grow to 5,000 characters.",
		"post.md is probably 4,000 characters.",
		"I did not count the characters of post.md; it is not 4,000 characters.",
		"Wrapped the lines of main.go at 80 characters.",
		"Added 200 words to the intro.",
		"The requirement was 4,000 characters; post.md has 4,210.",
		"Fixed the off-by-one on line 42; it returned 404 for 3 of the routes.",
		"Upgraded to Python 3.12; the API returns HTTP 200 in under 50 ms.",
		"Version 2.4.1 is tagged; see issue #128 for the 7 remaining bugs.",
		"The run took 12 minutes and used 3 tool calls.",
		"```\npost.md has 9 characters\n```",
		"The config now has 3 new entries.",
	} {
		t.Run(answer, func(t *testing.T) {
			if got := claimsOf(t, run{files: files, changed: []string{"post.md", "main.go", "log.md"}}, answer); len(got) > 0 {
				t.Errorf("claims = %v, want none: the answer claims nothing about the run", found(got))
			}
		})
	}
}

// TestFalseClaimsSayTheRealFigure holds the messages of the issue: what
// the worker is told, and what the verify event's line says.
func TestFalseClaimsSayTheRealFigure(t *testing.T) {
	tests := []struct {
		name, answer   string
		run            run
		feedback, fact string
	}{
		{"a count", "post.md has 3,847 characters.", run{files: map[string]string{"post.md": zh(3341)}},
			"claims: you said post.md has 3,847 characters; it has 3,341", "claims: post.md has 3,341 characters, not 3,847"},
		{"an approximate count", "post.md is about 4,000 characters.", run{files: map[string]string{"post.md": zh(3341)}},
			"claims: you said post.md has about 4,000 characters; it has 3,341", "claims: post.md has 3,341 characters, not about 4,000"},
		{"steps", "docs/install.md has all 5 steps.", run{files: map[string]string{"docs/install.md": "1. a\n2. b\n3. c\n"}},
			"claims: you said docs/install.md has 5 steps; it has 3", "claims: docs/install.md has 3 steps, not 5"},
		{"a file not written", "Updated CHANGELOG.md.", run{files: map[string]string{"CHANGELOG.md": "x"}, changed: []string{}},
			"claims: you said CHANGELOG.md was updated; the run did not change it", "claims: CHANGELOG.md was not changed by the run (you said updated)"},
		{"tests never run", "All tests pass.", run{},
			"claims: you said the tests pass; no test command ran in this run", "claims: no test command ran (you said the tests pass)"},
		{"tests that failed", "All tests pass.", run{ran: []verify.Ran{{Tool: "run_command", Command: "go test ./...", Status: "exit status 1"}}},
			"claims: you said the tests pass; the last test command, `go test ./...`, ended with exit status 1", "claims: `go test ./...` ended with exit status 1 (you said the tests pass)"},
		{"the answer's own count", "Here are 5 risks:\n1. a\n2. b\n", run{task: "List 5 risks."},
			"claims: you said the answer has 5 risks; it lists 2", "claims: the answer lists 2 risks, not 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := claimsOf(t, tt.run, tt.answer)
			if len(cs) != 1 || cs[0].Verdict != verify.ClaimFalse {
				t.Fatalf("claims = %v, want one false claim", found(cs))
			}
			if cs[0].Feedback != tt.feedback || cs[0].Fact != tt.fact {
				t.Errorf("feedback %q\nfact     %q\nwant     %q\n         %q", cs[0].Feedback, cs[0].Fact, tt.feedback, tt.fact)
			}
		})
	}
}

// TestClaimsCountAsTheRulesDo: a claim and a min-chars or min-words rule
// never disagree about one file. The false claim is told the figure the
// rule states.
func TestClaimsCountAsTheRulesDo(t *testing.T) {
	for _, content := range []string{zh(3341), "hello世界，你好。\n", "line one\nline two\n", "a\tb  c\r\n"} {
		in := setup(t, run{files: map[string]string{"p.md": content}}, "p.md has 99,999 characters and 99,999 words.")
		cs := New(Config{}).Claims(context.Background(), in)
		if len(cs) != 2 {
			t.Fatalf("claims = %v", found(cs))
		}
		chars := verify.MinChars("p.md", 99999).Check(context.Background(), in)
		wordsF := verify.MinWords("p.md", 99999).Check(context.Background(), in)
		for i, f := range []*verify.Failure{chars, wordsF} {
			// "min-chars p.md: 3341 < 99999": the rule's figure.
			figure := strings.Fields(strings.SplitN(f.Message, ": ", 2)[1])[0]
			if !strings.HasSuffix(cs[i].Feedback, "it has "+group(float64(atoi(figure)))) {
				t.Errorf("%q: the claim says %q, the rule %q", content, cs[i].Feedback, f.Message)
			}
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

func TestSpansPointIntoTheAnswer(t *testing.T) {
	answer := "Done. Total length: 3,847 characters, meets the requirement."
	cs := claimsOf(t, run{files: map[string]string{"post.md": zh(3341)}}, answer)
	if len(cs) != 1 || answer[cs[0].Start:cs[0].End] != cs[0].Text || cs[0].Text != "3,847 characters" {
		t.Errorf("claims %+v: the span must point at the claim's own words", cs)
	}
}

func TestMaxClaimsBoundsTheClaims(t *testing.T) {
	answer := strings.Repeat("a.md has 1 line. ", 10) + "b.md has 1 line. c.md has 1 line."
	in := setup(t, run{files: map[string]string{"a.md": "x\n", "b.md": "x\n", "c.md": "x\n"}}, answer)
	if got := New(Config{MaxClaims: 2}).Claims(context.Background(), in); len(got) != 2 {
		t.Errorf("%d claims, want 2 (MaxClaims); the same claim made twice counts once", len(got))
	}
}
