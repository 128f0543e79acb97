// Package claims checks, by code, what a worker's final answer says about
// its own result: the iron rule of seed 000 (section 1) — never trust the
// agent's self-report, count it yourself. A worker that writes "Total
// length: 3,847 characters, meets the requirement" for a post of 3,341 is
// told so, with the real figure, before any judge is asked:
//
//	claims: you said post.md has 3,847 characters; it has 3,341
//
// The check reads the answer (English first, and the shapes of Chinese:
// 字, 行, 个, 步) and extracts the claims code can check, deterministically
// and without a model:
//
//   - sizes and counts of a named file: characters, words, lines, bytes,
//     items, steps, rows and entries ("post.md is 3,847 characters", "all 5
//     steps are in docs/install.md", "the CSV has 120 rows", "全文共3847字");
//     a size without a file name ("Total length: ...") is about the one
//     file the run changed;
//   - that a named file was written, created, updated or deleted in this
//     run, against the paths the run changed (the journal and the file
//     tools' writes) and the workspace as it is;
//   - that tests, a build or a linter ran and passed, against the commands
//     of the run and their exit statuses: a claim with no such command
//     behind it is false;
//   - the answer's own count of the items the task asked for ("Here are 5
//     risks", when the task said "list 5 risks").
//
// Approximate and bounded figures are checked as what they say: "about
// 4,000" and a round "4,000" within Config.About (a tenth), "over 4,000",
// "at least 5", "~4k", "3,000–4,000", "4000字以上". Sizes are counted with
// the functions of the min-chars family of rules (verify.Chars,
// verify.Words, verify.Lines), so that a claim and a rule never disagree
// about one file; a false claim is told the figure a rule would state.
//
// Precision matters more than recall: a false FAIL costs the worker a
// round. A sentence that denies, hedges, plans or supposes ("should",
// "if", "not", "about to") makes no claim. A figure near a file is checked
// against the file only when the sentence says it is the file's size now,
// in the short grammar of shape.go ("post.md is …", "notes.md now has …",
// "Wrote notes.md (42 lines)", "extended to …", "…, which now totals …",
// "共 …", a table's Lines column); a change ("added 12 lines", "修改了 3
// 行"), the size before ("the 600-line utils.go" that was split), a part
// ("an intro of 200 words", "the run function in main.go is 40 lines") or
// the task's figure ("the 4,000 minimum") is unchecked. A count of a file
// with nothing to count by, a file name that could be several files, or
// a command the check cannot classify is unchecked too, never false.
// Unchecked claims go to the judge as a short list.
//
//	v := &verify.Verifier{Claims: claims.New(claims.Config{}), Judge: judge}
//	verdict, _, err := v.Verify(ctx, verify.Input{Task: task, Answer: answer, Files: root.FS(), Changed: changed, Ran: ran})
//	for _, c := range verdict.Claims {
//		fmt.Println(c.Verdict, c.Kind, c.Text, c.Measured)
//	}
package claims
