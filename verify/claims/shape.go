package claims

import (
	"path"
	"strings"
	"sync"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// The shapes of a total. A figure near a file name is checked against
// the file's size only when the sentence says it IS the file's size now:
// the file, then nothing but the words of a total between it and the
// figure ("post.md is 3,847 characters", "notes.md now has 42 lines",
// "data.csv 共 200 行", "Wrote notes.md (42 lines)", "extended to 4,210",
// "from 5,000 to 3,900"), a clause that opens with them ("…, which now
// totals 900 words", "现在共有 60 行"), or a figure made into the file
// by a verb that makes it ("Wrote a 300-word summary to summary.md",
// "Extracted 25 records into results.json"). Anything else near a file —
// a change ("added 12 lines", "修改了 3 行"), the size before ("the
// 600-line utils.go" that was split), a part ("an intro of 200 words",
// "the run function in main.go is 40 lines") — is not read as the file's
// size: it is unchecked, for the judge, never false. The grammar is a
// short list of the words a total is said with, not a list of the ways it
// is not: a sentence it does not know is unchecked.

// A token of the words between a file and its figure.
var (
	// enSepRe and zhSepRe are the marks and spaces between words.
	enSepRe = lazyregexp.New("^[\\s:,;()\\[\\]—–\\-|*_\"“”`>=]+")
	zhSepRe = lazyregexp.New(`^[\s：，、（）【】「」“”]+`)
	// possRe is the possessive: "README.md's word count is".
	possRe = lazyregexp.New(`^['’]s\b`)
	// enNowRe says the figure is the file's size now: a copula, a
	// possessive verb, a verb of a total, the end of a change ("extended
	// to").
	enNowRe = lazyregexp.New(`(?i)^(?:is|are|has|have|now|currently|totals|total|totalling|totaling|in total|a total of|altogether|contains|holds|keeps|retains|lists|includes|comprises|consists of|spans|comes? (?:in )?(?:to|at)|runs? (?:to|at)|stands? at|sits? at|reach(?:es|ed)|hits|weighs(?: in)?(?: at)?|measures|counts|clocks in at|(?:has |have |had )?(?:been )?(?:grown|grew|extended|expanded|trimmed|cut|reduced|shortened|shrunk|shrank|brought|dropped|went|gone|came|come|increased|decreased|condensed)(?: (?:down|up|back))? to|down to|to)\b`)
	// enLightRe are the words that may stand in a total's sentence
	// without saying it: articles, adverbs, the whole's nouns, and the
	// participles of making a file.
	enLightRe = lazyregexp.New(`(?i)^(?:a|an|the|its|it|itself|which|that|this|and|with|of|so|both|all|just|only|actually|in fact|really|exactly|precisely|roughly|well|comfortably|still|also|overall|file|document|doc|whole|entire|full|final|finished|resulting|result|total length|total size|total word count|word count|character count|char count|line count|length|size|count|number of (?:lines|words|characters|chars|rows|entries|items|steps|bytes|records)|written|created|saved|generated|done|ready|complete|completed|drafted|exported|in place|new file|new|table (?:with|of)|list (?:with|of)|containing|consisting of|clocking in at|coming in at|at)\b`)
	// newFileRe marks a file the run made: "(new, 64 lines)".
	newFileRe = lazyregexp.New(`(?i)^(?:new file|new|created|新建|新增文件|新文件)\b`)
	// enChangeRe are the participles of a change after the file: with
	// one of them, only a word of enNowRe makes the figure a total
	// ("README.md updated, now 80 lines").
	enChangeRe = lazyregexp.New(`(?i)^(?:grew|grown|went|gone|shrank|shrunk|dropped|increased|decreased|rose|fell|jumped|updated|edited|modified|changed|fixed|extended|expanded|trimmed|shortened|refactored|rewritten|rewrote|reformatted|formatted|cleaned up|touched|revised|patched|bumped|reworked|split|cut|reduced)\b`)
	// enFromToRe is the start of a change told by its ends: "from 5,000
	// to", "from 20 lines to"; arrowRe by an arrow: "20 → 42".
	enFromToRe = lazyregexp.New(`(?i)^from\s+(?:about\s+|around\s+|~)?\d[\d,.]*\s*(?:k|kb|mb)?\s*(?:[a-z]+\s+)?(?:to\b|→|->)`)
	arrowRe    = lazyregexp.New(`(?i)^\d[\d,.]*\s*(?:k|kb|mb)?\s*(?:[a-z]+\s*)?(?:→|->|=>)`)
	// enEnumRe is another count of the file in a list of them: "3
	// paragraphs, 180 words", "3 functions and 120 lines", "a header row
	// and 3 data rows".
	enEnumRe = lazyregexp.New(`(?i)^(?:\d[\d,.]*|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a dozen|a few|several)\s+([a-z]+)(?:\s+([a-z]+))?\s*(?:,|;|\(|\band\b|\bplus\b|&)`)
	// zhNowRe and zhLightRe are enNowRe and enLightRe in Chinese.
	zhNowRe   = lazyregexp.New(`^(?:剩余|剩下|还剩|余下|现在|目前|当前|如今|现有|共有|共计|一共|总共|总计|合计|共|只有|仅有|仅|只|有|为|是|达到|达|长|包含了?|包括|含有|含|列出了?|列了|列有|写了|写入了?|记录了?|收录了?|给出了?|(?:已)?(?:扩写|扩展|扩充|增加|增长|增|缩短|缩减|精简|压缩|减少|减|删减|改|写)了?(?:到|至)了?|到了?|至|全文|全篇|整篇|总字数|字数|总行数|行数|总长度|长度|大小|篇幅)`)
	zhLightRe = lazyregexp.New(`^(?:实际上|实际|其实|确实|中|里|内|的|已经|已|仍然|仍|还|也|都|约|大约|已完成|完成了?|写好了?|已写好|已保存|保存好了?|已生成|生成了?|已创建|创建了?|新建了?|文件|全部|所有|计)`)
	// zhChangeRe is enChangeRe in Chinese.
	zhChangeRe = lazyregexp.New(`^(?:已)?(?:更新|修改|编辑|修复|调整|重构|润色)了?`)
	// zhFromToRe is enFromToRe in Chinese: "从 5000 字缩短到".
	zhFromToRe = lazyregexp.New(`^(?:从|由)\s*\d[\d,，.]*\s*(?:个字符|字符|字节|字|行|KB|kB)?\s*(?:扩写|扩展|扩充|增加|缩短|缩减|精简|压缩|减少|删减|改)?了?(?:到|至|为)了?`)
	// zhEnumRe is enEnumRe in Chinese: "12 个测试用例，"; zhNotEnumRe
	// makes it a change or a size.
	zhEnumRe    = lazyregexp.New(`^[\d一二三四五六七八九十百千]+\s*(?:个|段|节|章|部分|条|项|张|份|处|种)\p{Han}{0,6}[，、,；;（(]`)
	zhNotEnumRe = lazyregexp.New(`^[\d一二三四五六七八九十百千]+\s*(?:个字|个字符|个单词|个词|个步骤|条目)|新增|增加|添加|删除|删去|删减|移除|修改|改动|更新|减少|缩短|扩写|补充`)
	// notEnumWords may not be the noun of another count: they make it a
	// change or a part.
	notEnumWords = map[string]bool{"added": true, "removed": true, "deleted": true, "inserted": true, "changed": true,
		"modified": true, "new": true, "more": true, "fewer": true, "less": true, "extra": true, "of": true, "in": true,
		"to": true, "from": true, "by": true, "was": true, "were": true, "per": true, "each": true,
		// "Total: 3 files, 420 lines" is the size of several files.
		"files": true, "documents": true, "pages": true, "modules": true, "packages": true, "scripts": true}
)

// totalBetween reports whether between — the words from a file to its
// figure — say that the figure is the file's size now. When the verb
// that governs the file is a change (gov is "change"), or a change's
// participle stands between, only a word of now says so: "Updated
// CHANGELOG.md with 3 entries" tells the entries added, "Updated
// CHANGELOG.md; it now has 3 entries" the total.
func totalBetween(between, gov string) bool {
	need, now := gov == govChange, false
	rest := between
	for rest != "" {
		if m := possRe.FindStringIndex(rest); m != nil {
			rest = rest[m[1]:]
			continue
		}
		if m := enSepRe.FindStringIndex(rest); m != nil {
			rest = rest[m[1]:]
			continue
		}
		if m := zhSepRe.FindStringIndex(rest); m != nil {
			rest = rest[m[1]:]
			continue
		}
		var m []int
		switch {
		case first(&m, enFromToRe, rest), first(&m, arrowRe, rest), first(&m, zhFromToRe, rest),
			first(&m, enNowRe, rest), first(&m, zhNowRe, rest):
			now = true
		case first(&m, enChangeRe, rest), first(&m, zhChangeRe, rest):
			need = true
		case enumAt(&m, rest):
		case first(&m, newFileRe, rest):
			now = true // "(new, 64 lines)": the whole of a file the run made
		case first(&m, enLightRe, rest), first(&m, zhLightRe, rest):
		default:
			return false
		}
		rest = rest[m[1]:]
	}
	return !need || now
}

// enumAt sets *m to another count at the start of s, "3 paragraphs,",
// unless its noun makes it a change or a part.
func enumAt(m *[]int, s string) bool {
	if zm := zhEnumRe.FindStringIndex(s); zm != nil && !zhNotEnumRe.MatchString(s[:zm[1]]) {
		*m = zm
		return true
	}
	sm := enEnumRe.FindStringSubmatchIndex(s)
	if sm == nil || notEnumWords[strings.ToLower(s[sm[2]:sm[3]])] || sm[4] >= 0 && notEnumWords[strings.ToLower(s[sm[4]:sm[5]])] {
		return false
	}
	*m = sm[:2]
	return true
}

// first sets *m to re's match at the start of s, if there is one.
func first(m *[]int, re *lazyregexp.Regexp, s string) bool {
	*m = re.FindStringIndex(s)
	return *m != nil
}

// leadTotal reports whether lead, the start of a clause up to its figure,
// says on its own that the figure is a total: "which now totals",
// "it now has", "现在共有", "共". It must say it: an empty lead says
// nothing.
func leadTotal(lead string) bool {
	lead = strings.TrimSpace(lead)
	if lead == "" {
		return false
	}
	rest := lead
	now := false
	for rest != "" {
		if m := enSepRe.FindStringIndex(rest); m != nil {
			rest = rest[m[1]:]
			continue
		}
		if m := zhSepRe.FindStringIndex(rest); m != nil {
			rest = rest[m[1]:]
			continue
		}
		var m []int
		switch {
		case first(&m, enNowRe, rest), first(&m, zhNowRe, rest):
			now = true
		case first(&m, subjectWordRe, rest), first(&m, enLightRe, rest), first(&m, zhLightRe, rest):
		default:
			return false
		}
		rest = rest[m[1]:]
	}
	return now
}

// nowLeadRe is a word of a clause's lead that points at the file now.
var nowLeadRe = lazyregexp.New(`(?i)\b(?:now|currently|it|its|which|the file|in total|altogether)\b|现在|目前|当前|如今|剩余|剩下|还剩|余下|它|该文件|文件`)

// subjectWordRe is the subject of a clause about the file before it:
// "it", "which", "the file", "它", "该文件".
var subjectWordRe = lazyregexp.New(`(?i)^(?:it|its|which|this|that|and|so|the file|bringing it|making it|for a total of|它|该文件|这个文件|此文件|文件|而且|并且|且)\b?`)

// How the verb before a file governs it: it made the file ("wrote
// notes.md", "added docs/api.md", "split a.go into b.go"), changed it
// ("updated CHANGELOG.md", "added an entry to CHANGELOG.md", "split
// utils.go"), or there is none.
const (
	govNone   = ""
	govMake   = "make"
	govChange = "change"
)

var (
	// govVerbRe finds the verbs that may govern a file: the change verbs,
	// and the verbs of making content and of cutting a file.
	govVerbRe = lazyregexp.New(`(?i)` + changeVerbs + `|\b(?:split|splitting|merged|cut|reduced|shortened|tweaked|adjusted|cleaned up|simplified|documented|inserted|exported|extracted|listed|answered|included|put|compiled|collected|composed|dumped|output)\b|导出了?|列出了?|拆分了?|合并了?|缩短了?|精简了?|压缩了?|调整了?|修复了?|重构了?`)
	// makeVerbs are the verbs whose file holds what they made, whole.
	makeVerbRe = lazyregexp.New(`(?i)^(?:wrote|written|created|generated|produced|saved|drafted|translated|recreated|regenerated|exported|extracted|dumped|compiled|collected|composed|listed|answered|included|put|output|\(new(?: file)?\)|写入了?|写好了?|写了|写完|写成|创建了?|新建了?|生成了?|保存了?|导出了?|列出了?)$`)
	// addVerbRe make a file when it is their object ("added
	// docs/api.md"), change it when it is their target ("added an entry
	// to CHANGELOG.md"); splitVerbRe the other way round ("split a.go
	// into b.go").
	addVerbRe   = lazyregexp.New(`(?i)^(?:added|adding|rewrote|rewritten|overwrote|overwritten|新增了?|添加了?|增加了?|重写了?|改写了?)$`)
	splitVerbRe = lazyregexp.New(`(?i)^(?:split|splitting|merged|moved|renamed|copied|拆分了?|合并了?)$`)
	// targetRe between a verb and a file makes the file its target.
	targetRe = lazyregexp.New(`(?i)\b(?:to|into|in|inside|onto|as|under)\b|到|进|入|成|为`)
)

// governing says how the last verb before the file m in s governs it.
func governing(s *sentence, m mention) string {
	verbs := govVerbRe.FindAllStringIndex(s.text[:m.start], -1)
	if len(verbs) == 0 {
		return govNone
	}
	v := verbs[len(verbs)-1]
	verb := strings.TrimSpace(s.text[v[0]:v[1]])
	target := targetRe.MatchString(s.text[v[1]:m.start])
	switch {
	case makeVerbRe.MatchString(verb):
		return govMake
	case addVerbRe.MatchString(verb):
		if target {
			return govChange
		}
		return govMake
	case splitVerbRe.MatchString(verb):
		if target {
			return govMake
		}
		return govChange
	}
	return govChange
}

var (
	// ofFileRe ends the words before a file that make it the place of
	// something: "the run function in", "the intro of".
	ofFileRe = lazyregexp.New(`(?i)\b(?:in|of|inside|within|for|from|to|on|against)\s+(?:the\s+)?(?:file\s+)?[` + "`" + `"“']?$`)
	// wholeHeadRe is what may stand before "in FILE" and still be the
	// file: the whole ("the post in post.md"), a total ("the number of
	// lines in"), a verb of where it is ("saved in", "draft is in").
	wholeHeadRe = lazyregexp.New(`(?i)(?:^|\s)(?:post|blog post|article|essay|draft|version|edition|revision|document|doc|file|report|story|piece|readme|guide|translation|letter|output|poem|script|notes|csv|dataset|spreadsheet|data|content|contents|everything|length|size|count|total|lines|words|characters|chars|rows|entries|items|steps|bytes|records|is|are|was|were|saved|written|stored|kept|lives|located|placed|put|available|ready|done|it|results?)$`)
)

// subjectOK reports whether the file m is what its clause is about, not
// the place of a part of it: "The post in post.md is …" is, "The run
// function in main.go is …" is not.
func subjectOK(s *sentence, m mention) bool {
	return wholeAt(s, m.start, m)
}

// wholeAt reports whether the words before offset at of s, in its
// clause, leave what starts there the subject: not "the intro of", "the
// run function in".
func wholeAt(s *sentence, at int, m mention) bool {
	cl := s.clauseAt(at)
	prefix := s.text[cl[0]:at]
	loc := ofFileRe.FindStringIndex(prefix)
	if loc == nil {
		return true
	}
	head := strings.TrimSpace(prefix[:loc[0]])
	if head == "" || wholeHeadRe.MatchString(head) {
		return true
	}
	words := strings.Fields(strings.ToLower(head))
	stem := strings.ToLower(strings.TrimSuffix(path.Base(m.name), path.Ext(m.name)))
	if len(words) > 0 && strings.Trim(words[len(words)-1], "`\"'") == stem {
		return true
	}
	// The target of a verb: "Added 5 questions to faq.md, which now
	// totals …". After a change, governing asks for a word of now; after a
	// verb that made something, the something must be the file's whole
	// ("Wrote the intro in post.md (200 words)" is the intro's size).
	if v := govVerbRe.FindAllStringIndex(head, -1); len(v) > 0 {
		last := v[len(v)-1]
		if makeVerbRe.MatchString(strings.TrimSpace(head[last[0]:last[1]])) {
			return wholeNouns(head[last[1]:], m)
		}
		return true
	}
	return false
}

var (
	// madeIntoRe is what stands between a figure and the file a verb made
	// it into: "25 records into", "a 300-word summary to", "all five
	// questions in".
	madeIntoRe = lazyregexp.New(`(?i)^\s*(?:[a-z][a-z-]*\s+){0,3}?(?:in|into|to|inside|under|on)\s+(?:the\s+)?(?:(?:new|file)\s+)*[` + "`" + `"“]?$|^\s*[` + "`" + `"“]?$`)
	// inFileRe is a figure's copula to the file after it: "all 5 steps
	// are in".
	inFileRe   = lazyregexp.New(`(?i)^\s*(?:[a-z][a-z-]*\s+){0,2}?(?:are|is)\s+(?:now\s+)?(?:all\s+)?(?:in|inside)\s+(?:the\s+)?(?:file\s+)?[` + "`" + `"“]?$`)
	thereAreRe = lazyregexp.New(`(?i)\bthere\s+(?:are|is)\s*(?:now\s+)?$`)
	// zhMadeIntoRe is madeIntoRe in Chinese: "10 条想法写入".
	zhMadeIntoRe = lazyregexp.New(`^\s*\p{Han}{0,4}?(?:写入|写进|保存到|保存在|存入|放在|放入|列在|记录在|写在|整理到|整理在)了?(?:到|在)?\s*$`)
)

// totalBefore reports whether a figure before the file m in the same
// clause is its size: made into it ("Extracted 25 records into
// results.json", "Wrote a 300-word summary to summary.md"), or in it
// ("all 5 steps are in docs/install.md", "there are 120 rows in").
func totalBefore(s *sentence, c count, m mention, gov string) bool {
	if s.clauseAt(c.at) != s.clauseAt(m.start) {
		return false
	}
	after := s.text[c.end:m.start]
	cl := s.clauseAt(c.at)
	lead := s.text[cl[0]:c.start]
	switch {
	case gov == govChange:
		return false
	case inFileRe.MatchString(after) && wholeNouns(after, m), thereAreRe.MatchString(lead) && madeIntoRe.MatchString(after) && wholeNouns(after, m):
		return true
	case gov == govMake:
		return (madeIntoRe.MatchString(after) && wholeNouns(after, m)) || zhMadeIntoRe.MatchString(after)
	}
	return zhMadeIntoRe.MatchString(after)
}

// joinRe is what joins the names of a plural subject: "a.md and b.md",
// "a.md、b.md 和 c.md".
var joinRe = lazyregexp.New("(?i)^[\\s,、`\"'*_]*(?:and|&|plus|as well as|和|与|及|以及|跟)?[\\s,、`\"'*_]*$")

// joinedFiles reports whether the file m is the last of several named
// together as one subject: a figure after them is their sum.
func joinedFiles(s *sentence, m mention, files []mention) bool {
	for i, f := range files {
		if f.start == m.start && i > 0 {
			return joinRe.MatchString(s.text[files[i-1].end:m.start])
		}
	}
	return false
}

// copulaStartRe is a verb of being or having right after a file.
var copulaStartRe = lazyregexp.New("(?i)^[\\s`\"'”)]*(?:is|are|has|have|contains|holds|totals|comes|runs|weighs|measures|spans)\\b")

// relativeSubject reports whether, before the file m in its clause,
// something else stands with a verb that governs m: "The entry I added
// to CHANGELOG.md", "the code I moved into util.go". A verb of being or
// having after m is that thing's, not m's.
func relativeSubject(s *sentence, m mention) bool {
	cl := s.clauseAt(m.start)
	prefix := s.text[cl[0]:m.start]
	v := govVerbRe.FindAllStringIndex(prefix, -1)
	if len(v) == 0 {
		return false
	}
	last := v[len(v)-1]
	// "The generated report.csv" is the file; "the entry I added to
	// CHANGELOG.md" is not.
	return strings.TrimSpace(prefix[:last[0]]) != "" && targetRe.MatchString(prefix[last[1]:])
}

// attrWhole reports whether a figure used as an adjective ("a 12-line
// table") is of the file m as a whole ("a 300-word summary" of
// summary.md); any other figure is.
func attrWhole(s *sentence, c count, m mention) bool {
	return !c.attr || wholeNouns(firstWord(s.text[c.end:]), m)
}

// firstWord is the first word of s.
func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return strings.TrimRight(f[0], ".,;:!?)")
	}
	return ""
}

// wholeNouns reports whether the words of after, between a figure and
// its file, name the file as a whole: none ("25 records into"), a
// document's noun ("a 1,000-word essay to"), the file's stem ("a
// 300-word summary to summary.md"). "A 12-line summary into notes.md"
// is a part of notes.md.
func wholeNouns(after string, m mention) bool {
	stem := strings.ToLower(strings.TrimSuffix(path.Base(m.name), path.Ext(m.name)))
	for _, w := range strings.Fields(strings.ToLower(after)) {
		w = strings.Trim(w, "`\"“'")
		switch {
		case w == "" || w == stem || wholeNounWords()[w]:
		default:
			return false
		}
	}
	return true
}

// wholeNounWords are the words that may name a file as a whole, and the
// small words around them.
var wholeNounWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the new file in into to inside under on is are now all of post blog article essay draft
		document doc report story piece readme guide translation letter output poem script notes csv dataset spreadsheet
		data text content page copy version`) {
		m[w] = true
	}
	return m
})

// isTotal reports whether the sentence says the figure c is the size of
// the file m now, and if not, why it was not checked.
func (x *checker) isTotal(s *sentence, c count, m mention, files []mention) (bool, string) {
	if m.end <= c.start && !subjectOK(s, m) {
		// "The run function in main.go is 40 lines"; a file after its
		// figure is where the figure went ("25 records into
		// results.json"), and totalBefore reads it.
		return false, "a size of a part of " + m.name + ", not of the file"
	}
	if m.end <= c.start && joinedFiles(s, m, files) {
		// "a.md and b.md total 1,800 words", "a.md 和 b.md 共 600 行".
		return false, "a size of several files, not of " + m.name + " alone"
	}
	gov := governing(s, m)
	if gov == govNone && s.item && s.lead != "" {
		// "Changes:\n- notes.md: 12 lines": what changed, unless the
		// item says the size now.
		gov = govChange
	}
	if s.table != nil {
		if ok, known := s.cellTotal(c, m); known {
			if ok {
				return true, ""
			}
			return false, "the table's column is not the size of " + m.name
		}
	}
	if m.end <= c.start {
		if !attrWhole(s, c, m) {
			// "notes.md contains a 12-line table": the table's size.
			return false, "a size of a part of " + m.name + ", not of the file"
		}
		if relativeSubject(s, m) && copulaStartRe.MatchString(s.text[m.end:c.start]) {
			// "The entry I added to CHANGELOG.md is 6 lines": the entry's
			// size, not the file's.
			return false, "a size of what was written to " + m.name + ", not of the file"
		}
		if totalBetween(s.text[m.end:c.start], gov) {
			return true, ""
		}
	} else if totalBefore(s, c, m, gov) {
		return true, ""
	}
	// A clause of its own that says it: "…, which now totals 900 words".
	cl := s.clauseAt(c.at)
	own := true
	for _, f := range files {
		if f.start >= cl[0] && f.start < cl[1] {
			own = false
		}
	}
	if own && leadTotal(s.text[cl[0]:c.start]) {
		// After a change, a bare "共 20 行" is what was added ("README.md
		// 新增 FAQ，共 20 行"); "现在共有", "which now totals" say the file.
		changed := gov == govChange
		if m.end <= cl[0] {
			if v := govVerbRe.FindString(s.text[m.end:cl[0]]); v != "" && !makeVerbRe.MatchString(strings.TrimSpace(v)) {
				changed = true
			}
		}
		if !changed || nowLeadRe.MatchString(s.text[cl[0]:c.start]) {
			return true, ""
		}
	}
	return false, "not said to be the size of " + m.name + " now (a change, a part or the size before?)"
}
