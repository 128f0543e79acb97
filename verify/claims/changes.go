package claims

import (
	"strings"
	"sync"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// Kinds of claims about the run's changes.
const (
	kindWritten = "written"
	kindDeleted = "deleted"
)

// changeVerbs are the words that say a file was changed: English past
// forms and participles (a present "writes" describes code, not the run),
// a list's "(new)", and their Chinese twins.
const changeVerbs = `\b(?:wrote|written|rewrote|rewritten|overwrote|overwritten|created|added|saved|generated|produced|updated|edited|modified|changed|revised|extended|expanded|appended|filled in|filled|populated|fixed|refactored|replaced|implemented|drafted|translated|reformatted|formatted|shortened|trimmed|bumped|regenerated|recreated|rebuilt|deleted|removed|erased|renamed|moved|copied)\b|\(new(?: file)?\)|写入了|写入|写好了|写好|写了|写完|写成|创建了|创建|新建了|新建|生成了|生成|更新了|更新|修改了|修改|编辑了|编辑|保存了|保存|添加了|添加|新增了|新增|补充了|补充|扩写了|扩写|删除了|删除|移除了|移除|删掉了|删掉|删去|重写了|重写|改写了|改写`

var (
	changeVerbRe = lazyregexp.New(`(?i)` + changeVerbs)
	// describeRe opens the clause that describes a file after a colon or
	// a dash: the verb, and what follows it.
	describeRe = lazyregexp.New(`(?i)^\s*(?:` + changeVerbs + `)(.*)$`)
)

// verbKind says what a change verb claims: written, deleted, moved (the
// old name is gone, the new one written) or copied (only the copy is
// written).
func verbKind(v string) string {
	v = strings.ToLower(v)
	switch {
	case v == "deleted" || v == "removed" || v == "erased" || strings.HasPrefix(v, "删") || strings.HasPrefix(v, "移除"):
		return kindDeleted
	case v == "renamed" || v == "moved":
		return "moved"
	case v == "copied":
		return "copied"
	}
	return kindWritten
}

// participles are how a message says the verb.
var participles = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"wrote": "written", "rewrote": "rewritten", "overwrote": "overwritten", "(new)": "created", "(new file)": "created",
		"写入": "written", "写好": "written", "写了": "written", "写完": "written", "写成": "written",
		"创建": "created", "新建": "created", "生成": "generated", "更新": "updated", "修改": "modified", "编辑": "edited",
		"保存": "saved", "添加": "added", "新增": "added", "补充": "extended", "扩写": "extended", "重写": "rewritten",
		"改写": "rewritten", "删除": "deleted", "移除": "removed", "删掉": "deleted", "删去": "deleted",
	}
})

func participle(v string) string {
	l := strings.TrimSuffix(strings.ToLower(v), "了")
	if p, ok := participles()[l]; ok {
		return p
	}
	return l
}

var (
	// fillerRe is what a clause that only names files may hold besides
	// them: "and", "also", "plus", marks.
	fillerRe = lazyregexp.New(`(?i)^[\s,.;:*_\-–—` + "`" + `"“”()]*(?:and|also|plus|as well as|or|以及|和|及|与)?[\s,.;:*_\-–—` + "`" + `"“”()]*$`)
)

// changeClaims reads the claims that the run wrote or deleted files.
func (x *checker) changeClaims(s *sentence, files []mention) {
	if len(files) == 0 {
		return
	}
	carry := ""
	for i, cl := range s.clauses {
		text := s.text[cl[0]:cl[1]]
		var ms []mention
		for _, m := range files {
			if m.start >= cl[0] && m.start < cl[1] {
				ms = append(ms, m)
			}
		}
		verbs := changeVerbRe.FindAllStringIndex(text, -1)
		if killed(text) {
			carry = ""
			continue
		}
		if len(verbs) == 0 {
			if len(ms) == 0 || !onlyFiles(s.text, cl, ms) {
				if len(ms) > 0 {
					carry = ""
				}
				continue
			}
			// A clause that only names files takes the verb before it
			// ("Updated a.md, b.md and c.md"), its list's heading ("Files
			// created:"), or the verb that describes it after a colon or
			// a dash ("`api/handler.go`: added input validation").
			verb := carry
			if verb == "" && s.item && ms[0].start <= cl[0]+4 {
				verb = s.lead
			}
			kind, said := verbKind(verb), participle(verb)
			if verb == "" {
				if verb, kind, said = describedBy(s, i); verb == "" {
					continue
				}
			}
			for _, m := range ms {
				x.changeClaim(s, m, kind, said, m.start, m.end)
			}
			continue
		}
		v := text[verbs[len(verbs)-1][0]:verbs[len(verbs)-1][1]]
		carry = v
		if len(ms) == 0 {
			continue
		}
		x.verbClaims(s, cl, ms, verbs)
	}
}

// describedBy returns the verb of the clause after clause i of s when it
// describes the files of clause i ("- `api/handler.go`: added input
// validation"): a file described by what was done to it was written; by
// a delete verb alone ("old.md — removed"), deleted.
func describedBy(s *sentence, i int) (verb, kind, said string) {
	if i+1 >= len(s.clauses) {
		return "", "", ""
	}
	sep := s.text[s.clauses[i][1]:s.clauses[i+1][0]]
	if !strings.ContainsAny(sep, ":：—–-") {
		return "", "", ""
	}
	next := s.text[s.clauses[i+1][0]:s.clauses[i+1][1]]
	m := describeRe.FindStringSubmatchIndex(next)
	if m == nil || killed(next) {
		return "", "", ""
	}
	verb = strings.TrimSpace(next[:m[len(m)-2]])
	rest := strings.Trim(next[m[len(m)-2]:], " .!*_`")
	kind, said = verbKind(verb), participle(verb)
	if kind != kindWritten && rest != "" {
		// "README.md: removed the old section" is an edit.
		kind, said = kindWritten, "edited"
	}
	return verb, kind, said
}

// onlyFiles reports whether the clause holds nothing but file names.
func onlyFiles(text string, cl [2]int, ms []mention) bool {
	var rest strings.Builder
	prev := cl[0]
	for _, m := range ms {
		rest.WriteString(text[prev:m.start])
		prev = m.end
	}
	rest.WriteString(text[prev:cl[1]])
	return fillerRe.MatchString(rest.String())
}

// verbClaims makes the claims of one clause with its change verbs. A
// file is claimed by a verb it is the object of ("Updated README.md",
// "wrote the report to report.md", "removed the TODO from main.go") or
// the subject of ("docs/install.md written", "old.md was deleted"); a
// file the sentence only mentions ("updated the docs to mention
// README.md", "added a test for parser.go") is not.
func (x *checker) verbClaims(s *sentence, cl [2]int, ms []mention, verbs [][]int) {
	type use struct {
		verb                  string
		start, end            int
		target, passive, from bool
	}
	uses := make([]*use, len(ms))
	targets := 0
	for i, m := range ms {
		var best *use
		dist := -1
		for _, v := range verbs {
			vs, ve := cl[0]+v[0], cl[0]+v[1]
			var u *use
			var d int
			switch {
			case ve <= m.start:
				rel, ok := objectOf(s.text[ve:m.start])
				if !ok {
					continue
				}
				if rel == "object" && placeAfterRe.MatchString(s.text[m.end:]) {
					// "删除了 main.go 中 15 行", "removed main.go's dead
					// code": the file is where it happened.
					rel = "target"
				}
				u, d = &use{verb: s.text[vs:ve], start: vs, end: m.end, target: rel == "target", from: rel == "from"}, m.start-ve
			case vs >= m.end:
				if placeBetweenRe.MatchString(s.text[m.end:vs]) {
					// "在 README.md 中新增了 20 行": changed in the file.
					u, d = &use{verb: s.text[vs:ve], start: m.start, end: ve, target: true}, vs-m.end
					break
				}
				if !subjectRe.MatchString(s.text[m.end:vs]) || passiveHabitRe.MatchString(s.text[ve:cl[1]]) {
					continue
				}
				if zhObjectRe.MatchString(s.text[ve:cl[1]]) {
					// "post.md 删掉了 300 个单词": something was removed from
					// the file, which stays.
					u, d = &use{verb: s.text[vs:ve], start: m.start, end: ve, target: true}, vs-m.end
					break
				}
				u, d = &use{verb: s.text[vs:ve], start: m.start, end: ve, passive: true}, vs-m.end
			default:
				continue
			}
			if dist < 0 || d < dist {
				best, dist = u, d
			}
		}
		uses[i] = best
		if best != nil && best.target {
			targets++
		}
	}
	for i, m := range ms {
		u := uses[i]
		if u == nil {
			continue
		}
		kind := verbKind(u.verb)
		switch {
		case u.from && kind == kindDeleted, u.target && kind == kindDeleted:
			// "removed the TODO from main.go", "deleted a paragraph in
			// post.md": the file was edited.
			x.changeClaim(s, m, kindWritten, "edited", u.start, u.end)
		case u.from:
			// Where something came from, not what was changed.
		case kind == "moved" || kind == "copied":
			switch {
			case u.target:
				x.changeClaim(s, m, kindWritten, participle(u.verb), u.start, u.end)
			case kind == "moved" && targets > 0:
				x.changeClaim(s, m, kindDeleted, participle(u.verb)+" away", u.start, u.end)
			}
		case targets > 0 && !u.target && !u.passive:
			// "added config.yaml to .gitignore": only the target is
			// claimed.
		default:
			x.changeClaim(s, m, kind, participle(u.verb), u.start, u.end)
		}
	}
}

var (
	// prepRe finds the prepositions, and the words that make a file
	// something mentioned, between a verb and its file.
	prepRe = lazyregexp.New(`(?i)\b(?:to|into|in|inside|at|under|as|onto|from|for|of|with|than|like|about|on|by|via|using|per|against|after|before|without|beside|near|over|through|mention|mentions|mentioning|reference|references|referencing|link|links|linking|point|points|pointing|describe|describes|describing|explain|explains|match|matches|that|which|who|because|since|so|if|when)\b|到|进|入|从|根据|参考|基于`)
	// subjectRe is what may stand between a file and a verb that says
	// what happened to it: "docs/install.md written", "old.md was
	// deleted", "post.md: created".
	subjectRe = lazyregexp.New("(?i)^[\\s`*_\"')\\]]*(?:(?:has|have|had|was|were|is|are|been|be|now|also|successfully|just|got|all|both|已经|已|被|也)\\s*)*[\\s:：—–\\-(]*$")
	// passiveHabitRe after a verb makes a passive a description of what
	// code does: "out.csv is written by the script on each run".
	passiveHabitRe = lazyregexp.New(`(?i)^\s+(?:by\s+(?:the|a|an|each|every|this|that)\s+(?:script|program|job|tool|code|function|command|build|hook|server)|when|whenever|each|every|on each|on every|if|once)\b`)
	// placeAfterRe after a file makes it the place of what a verb before
	// it did: "删除了 main.go 中的", "removed main.go's"; placeBetweenRe,
	// between a file and a verb after it: "README.md 中新增了".
	placeAfterRe   = lazyregexp.New(`^(?:\s*(?:中|里|内|当中|里面|的)|['’]s\b)`)
	placeBetweenRe = lazyregexp.New("^[\\s`*_\"')\\]]*(?:中|里|内|当中|里面)\\s*(?:已经|已|也)?\\s*$")
	// zhObjectRe after a Chinese verb that follows its file is the verb's
	// object: the file is the topic, where it happened ("post.md 删掉了
	// 300 个单词"), not what happened to ("old.md 已删除。").
	zhObjectRe = lazyregexp.New(`^(?:了|掉)*\s*[\p{Han}\d０-９]`)
	// placeRe, before "of FILE", names a place in the file.
	placeRe = lazyregexp.New(`(?i)\b(?:lines?\s+\d+(?:\s*[-–]\s*\d+)?|top|bottom|end|start|beginning|head|tail|middle|header|footer|section|part)\s*$`)
	// fillerAfterPrepRe is what may follow a preposition before its
	// file: "in the file", "to the new".
	fillerAfterPrepRe = lazyregexp.New(`(?i)^(?:(?:the|a|an|new|file|folder|directory|dir|existing|my|our|your|its)\s*)+$`)
)

// objectOf reads what stands between a change verb and a file after it,
// and reports how the file relates to the verb: "object" ("Updated
// README.md", "created the install guide docs/install.md"), "target" (a
// preposition of place just before it: "wrote the report to report.md"),
// "from" (where something came from); ok is false when the file is no
// object of the verb.
func objectOf(between string) (rel string, ok bool) {
	words := strings.Fields(between)
	if len(words) > 10 {
		return "", false
	}
	locs := prepRe.FindAllStringIndex(between, -1)
	if len(locs) == 0 {
		if len(words) > 5 {
			return "", false
		}
		return "object", true
	}
	last := locs[len(locs)-1]
	word := strings.ToLower(between[last[0]:last[1]])
	// Only an article, "file" or "folder" may stand between the
	// preposition and the file.
	if rest := strings.Trim(between[last[1]:], " \t`*_\"“'"); rest != "" && !fillerAfterPrepRe.MatchString(rest) {
		return "", false
	}
	switch word {
	case "to", "into", "in", "inside", "at", "under", "as", "onto", "到", "进", "入":
		return "target", true
	case "from", "从":
		return "from", true
	case "of":
		// "on line 42 of parser.go", "the end of README.md": a place in
		// the file.
		if placeRe.MatchString(between[:last[0]]) {
			return "target", true
		}
	}
	return "", false
}

// changeClaim checks one claim that the run wrote (kind written) or
// deleted a file, against the paths the run changed and the workspace as
// it is now.
func (x *checker) changeClaim(s *sentence, m mention, kind, said string, start, end int) {
	c := x.claim(s, kind, start, end)
	c.Said = said
	name := m.name
	p, found := x.w.resolve(name)
	if !found && x.w.ambiguous(name) {
		x.unchecked(c, name+" could be several files")
		return
	}
	if !found {
		p = name
	}
	c.Path = p
	exists, changed := x.w.exists(p), x.w.wasChanged(p)
	switch kind {
	case kindWritten:
		switch {
		case changed && exists:
			c.Measured = "changed by the run"
			x.truth(c)
		case changed:
			c.Measured = "does not exist"
			x.falsity(c, "you said "+p+" was "+said+"; it does not exist", p+" does not exist (you said "+said+")")
		case exists:
			c.Measured = "not changed by the run"
			x.falsity(c, "you said "+p+" was "+said+"; the run did not change it", p+" was not changed by the run (you said "+said+")")
		default:
			c.Measured = "does not exist"
			x.falsity(c, "you said "+p+" was "+said+"; it does not exist", p+" does not exist (you said "+said+")")
		}
	case kindDeleted:
		switch {
		case exists:
			c.Measured = "still exists"
			x.falsity(c, "you said "+p+" was "+said+"; it is still there", p+" still exists (you said "+said+")")
		case changed:
			c.Measured = "deleted by the run"
			x.truth(c)
		default:
			c.Measured = "not deleted by the run"
			x.falsity(c, "you said "+p+" was "+said+"; the run did not delete it", p+" was not deleted by the run (you said "+said+")")
		}
	}
}
