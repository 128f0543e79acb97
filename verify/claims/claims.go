package claims

import (
	"context"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/verify"
)

// Defaults of Config.
const (
	// DefaultAbout is how far off an approximate figure may be: a tenth.
	DefaultAbout = 0.1
	// DefaultMaxClaims bounds the claims read from one answer.
	DefaultMaxClaims = 200
)

// Config configures the claims check. Zero values mean the defaults.
type Config struct {
	// About is the tolerance of an approximate figure ("about 4,000",
	// "~4k", "4,000字左右", and a round figure such as "4,000 characters"
	// or "12 KB", which reads as an estimate): the measured value may be
	// this fraction of it off, and at least 1. Default DefaultAbout (0.1).
	About float64
	// MaxClaims bounds the claims read from one answer; the rest of the
	// answer is not read. Default DefaultMaxClaims (200).
	MaxClaims int
}

// Check is the claims check: it implements verify.ClaimChecker.
type Check struct {
	cfg Config
}

var _ verify.ClaimChecker = (*Check)(nil)

// New returns the claims check with cfg's tolerances.
func New(cfg Config) *Check {
	if cfg.About <= 0 {
		cfg.About = DefaultAbout
	}
	if cfg.MaxClaims <= 0 {
		cfg.MaxClaims = DefaultMaxClaims
	}
	return &Check{cfg: cfg}
}

// Claims reads in.Answer and returns the claims it found, in the order of
// the answer, each checked against the workspace (in.Files or in.Dir), the
// paths the run changed (in.Changed) and its calls (in.Ran: its commands
// and its file tools' writes). It never calls a model and never fails:
// what it cannot check is unchecked.
func (c *Check) Claims(ctx context.Context, in verify.Input) []verify.Claim {
	fsys, done, err := in.Open()
	if err != nil {
		fsys, done = nil, func() {}
	}
	defer done()
	// What the file tools wrote counts as changed, even where the content
	// was already there: the worker did write it.
	changed := slices.Clone(in.Changed)
	for _, r := range in.Ran {
		if r.Path != "" && r.OK {
			changed = append(changed, r.Path)
		}
	}
	x := &checker{in: in, w: newWorkspace(fsys, changed), tol: c.cfg.About, max: c.cfg.MaxClaims, seen: map[string]bool{}}
	x.asks = taskAsks(in.Task)
	for _, s := range splitSentences(in.Answer) {
		if ctx.Err() != nil || len(x.out) >= x.max {
			break
		}
		x.sentence(&s)
	}
	// In the order of the answer; one sentence's claims are found kind by
	// kind.
	slices.SortStableFunc(x.out, func(a, b verify.Claim) int { return a.Start - b.Start })
	return x.out
}

// checker is one run of the check over one answer.
type checker struct {
	in   verify.Input
	w    *workspace
	tol  float64
	max  int
	asks []ask
	out  []verify.Claim
	seen map[string]bool
	// prev is the one file the sentence before named, if it named one:
	// "I wrote essay.md. It is 812 words long."; prevTests is true when
	// it spoke of tests ("I added 4 tests; they all pass").
	prev      string
	prevTests bool
	// texts are the changed text files (textFiles).
	texts []string
}

// sentence reads every claim of s.
func (x *checker) sentence(s *sentence) {
	if s.question || s.conditional {
		return
	}
	var files []mention
	for _, m := range findFiles(s.text) {
		// "README" is a file only where there is one; else a word.
		if m.bare {
			if _, ok := x.w.resolve(m.name); !ok {
				continue
			}
		}
		files = append(files, m)
	}
	for _, c := range findCounts(s, x.askedAny) {
		x.countClaim(s, c, files)
	}
	x.changeClaims(s, files)
	x.commandClaims(s)
	x.prevTests = strings.Contains(strings.ToLower(s.text), "test") || strings.Contains(s.text, "测试")
	x.prev = ""
	for _, m := range files {
		if x.prev != "" && x.prev != m.name {
			x.prev = ""
			break
		}
		x.prev = m.name
	}
}

// claim starts a claim of kind spanning [start, end) of s.
func (x *checker) claim(s *sentence, kind string, start, end int) *verify.Claim {
	return &verify.Claim{Kind: kind, Text: s.text[start:end], Start: s.start + start, End: s.start + end}
}

// add records c unless the answer made the same claim already.
func (x *checker) add(c *verify.Claim) {
	key := c.Kind + "\x00" + c.Path + "\x00" + c.Said
	if x.seen[key] || len(x.out) >= x.max {
		return
	}
	x.seen[key] = true
	x.out = append(x.out, *c)
}

func (x *checker) truth(c *verify.Claim) {
	c.Verdict = verify.ClaimTrue
	x.add(c)
}

func (x *checker) falsity(c *verify.Claim, feedback, fact string) {
	c.Verdict, c.Feedback, c.Fact = verify.ClaimFalse, "claims: "+feedback, "claims: "+fact
	x.add(c)
}

func (x *checker) unchecked(c *verify.Claim, why string) {
	c.Verdict, c.Fact = verify.ClaimUnchecked, why
	x.add(c)
}

var (
	// wholeRe names the whole of a document as the subject of a size:
	// "Total length", "the post is", "全文". Without a file name, only
	// such a sentence is about the one file the run changed.
	wholeRe = lazyregexp.New(`(?i)\b(?:total|in total|overall|length|word count|character count|char count|line count|the (?:post|article|essay|draft|document|doc|file|report|story|piece|text|chapter|blog post|write-?up|readme|page|guide|translation|letter|copy|output|result|poem|script|notes|list|csv|table|dataset|spreadsheet))\b|全文|正文|总共|共计|一共|总计|总字数|字数|篇幅|全篇|这篇|文章|共`)
	// pastSizeRe, before a figure, makes it a size the file had before:
	// "README.md was 340 lines; it is now 120".
	pastSizeRe = lazyregexp.New(`(?i)\b(?:was|were|had been|used to be|had)\s+(?:about\s+|around\s+|over\s+|under\s+|roughly\s+|only\s+)?$`)
	// pronounRe opens a sentence about the file the one before named.
	pronounRe = lazyregexp.New(`(?i)^(?:it|it's|its|this file|the file|that file|this one)\b|^(?:它|该文件|这个文件|此文件|文件)`)
)

// countClaim checks one figure with a unit: about a named file, about
// the one file the run changed, or the answer's own count of what the
// task asked for. A figure is checked against a file only in a sentence
// that says it is the file's size now (isTotal); one that is a change, a
// part or the size before is unchecked.
func (x *checker) countClaim(s *sentence, c count, files []mention) {
	cl := s.clauseAt(c.at)
	clause := s.text[cl[0]:cl[1]]
	if killed(clause) {
		// Not a claim: it denies, hedges, plans or supposes.
		return
	}
	if c.why == "" && pastSizeRe.MatchString(clause[:max(c.at-cl[0], 0)]) {
		c.why = whyBefore // "README.md was 340 lines"
	}
	kind := c.kind
	if kind == "" {
		// Another noun counts only when the task asked for that many.
		if _, ok := x.asked(c.noun); !ok {
			return
		}
		kind = kindItems
	}
	m, named := nearestFile(s, c, files)
	if !named && x.prev != "" {
		if p := pronounRe.FindStringIndex(s.text); p != nil {
			// "It is 812 words long": the file of the sentence before.
			switch {
			case c.why != "":
				x.notTotal(s, c, kind, x.prev, c.start, c.end, c.why)
			case attrWhole(s, c, mention{name: x.prev}) && (totalBetween(s.text[p[1]:c.start], govNone) || leadTotal(s.text[cl[0]:c.start])):
				x.fileCount(s, c, kind, x.prev, c.start, c.end)
			default:
				x.notTotal(s, c, kind, x.prev, c.start, c.end, "not said to be the size of "+x.prev+" now (a change, a part or the size before?)")
			}
			return
		}
	}
	if !named {
		if c.why != "" {
			return
		}
		if c.kind == "" || (kind == kindItems && x.askedAny(c.noun)) {
			if _, ok := x.asked(c.noun); ok {
				x.answerClaim(s, c)
			}
			return
		}
		x.implicitClaim(s, c)
		return
	}
	start, end := min(c.start, m.start), max(c.end, m.end)
	if c.why != "" {
		x.notTotal(s, c, kind, m.name, start, end, c.why)
		return
	}
	if ok, why := x.isTotal(s, c, m, files); !ok {
		x.notTotal(s, c, kind, m.name, start, end, why)
		return
	}
	x.fileCount(s, c, kind, m.name, start, end)
}

// notTotal records a figure about the file name that is not its size
// now, unchecked, with why: the judge may look.
func (x *checker) notTotal(s *sentence, c count, kind, name string, start, end int, why string) {
	cl := x.claim(s, kind, start, end)
	cl.Said = c.b.said() + " " + pluralUnit(c.b.one(), c.unit)
	cl.Path = name
	if p, ok := x.w.resolve(name); ok {
		cl.Path = p
	}
	x.unchecked(cl, why)
}

// askedAny reports whether the task asked for a count of noun.
func (x *checker) askedAny(noun string) bool {
	_, ok := x.asked(noun)
	return ok
}

// nearestFile is the file a figure is about: one in its clause, else in
// its sentence, the nearest before it, else after it.
func nearestFile(s *sentence, c count, files []mention) (mention, bool) {
	cl := s.clauseAt(c.at)
	var inClause []mention
	for _, m := range files {
		if m.start >= cl[0] && m.start < cl[1] {
			inClause = append(inClause, m)
		}
	}
	pool := inClause
	if len(pool) == 0 {
		pool = files
	}
	var best *mention
	for i := range pool {
		if pool[i].end <= c.start {
			best = &pool[i]
		}
	}
	if best == nil {
		for i := range pool {
			if pool[i].start >= c.end {
				best = &pool[i]
				break
			}
		}
	}
	if best == nil {
		return mention{}, false
	}
	return *best, true
}

// implicitClaim checks a size given without a file name ("Total length:
// 3,847 characters", "The post is 2,500 words") against the one text
// file the run changed, or the changed file the sentence names by its
// stem ("the post": post.md). The sentence must say the figure is the
// whole's size, as isTotal says it of a file: "The post has an intro of
// 200 words" is unchecked, and a size of something else ("the function
// is 40 lines") is left alone.
func (x *checker) implicitClaim(s *sentence, c count) {
	lower := strings.ToLower(s.text)
	var candidates, named []string
	subject := -1 // the end of the words that name the whole
	stemStart := -1
	for _, p := range x.textFiles() {
		candidates = append(candidates, p)
		// The sentence may name it by its stem: "the post" is post.md,
		// "Summary is 180 words" summary.md.
		stem := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
		if len(stem) < 3 {
			continue
		}
		if at := wordAt(lower[:c.start], stem); at >= 0 {
			named = append(named, p)
			if at+len(stem) > subject {
				subject, stemStart = at+len(stem), at
			}
		}
	}
	specific := "" // "the guide": a noun that names one kind of file
	subjectStart := stemStart
	for _, m := range wholeRe.FindAllStringIndex(s.text[:c.start], -1) {
		if m[1] > subject {
			subject, specific, subjectStart = m[1], "", m[0]
			if w := strings.ToLower(s.text[m[0]:m[1]]); strings.HasPrefix(w, "the ") && specificNouns()[w[4:]] {
				specific = w[4:]
			}
		}
	}
	if len(named) > 0 {
		candidates = named
	} else if specific != "" && len(candidates) == 1 && !strings.Contains(strings.ToLower(path.Base(candidates[0])), specific) {
		// "The guide has 9 sections" when the run changed README.md: the
		// guide may be another file.
		candidates = nil
	}
	if subject < 0 {
		return
	}
	cl := s.clauseAt(c.at)
	var whole mention
	if len(candidates) == 1 {
		whole.name = candidates[0]
	}
	total := (totalBetween(s.text[subject:c.start], govNone) || leadTotal(s.text[cl[0]:c.start])) &&
		(subjectStart < 0 || wholeAt(s, subjectStart, whole)) && attrWhole(s, c, whole)
	if len(candidates) != 1 {
		if !total {
			return
		}
		if len(candidates) == 0 && specific == "" {
			return
		}
		claim := x.claim(s, c.kind, c.start, c.end)
		claim.Said = c.b.said() + " " + pluralUnit(c.b.one(), c.unit)
		x.unchecked(claim, "the answer does not say which file")
		return
	}
	if !total {
		x.notTotal(s, c, c.kind, candidates[0], c.start, c.end, "not said to be the size of "+candidates[0]+" now (a change, a part or the size before?)")
		return
	}
	x.fileCount(s, c, c.kind, candidates[0], c.start, c.end)
}

// specificNouns, after "the", name one kind of document: "the guide" is
// the changed file only if its name says guide. "The post", "the file",
// "the document" are whatever the run wrote.
var specificNouns = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"report": true, "story": true, "chapter": true, "readme": true, "page": true,
		"guide": true, "translation": true, "letter": true, "poem": true, "script": true, "notes": true, "list": true,
		"csv": true, "table": true, "dataset": true, "spreadsheet": true}
})

// wordAt returns the offset of the last whole word w in s, or -1.
func wordAt(s, w string) int {
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], w)
		if i < 0 {
			return -1
		}
		if (i == 0 || !isAlnum(rune(s[i-1]))) && (i+len(w) == len(s) || !isAlnum(rune(s[i+len(w)]))) {
			return i
		}
		end = i
	}
	return -1
}

// textFiles returns the changed paths that are text files now, sorted,
// found once per check.
func (x *checker) textFiles() []string {
	if x.texts == nil {
		x.texts = []string{}
		for p := range x.w.changed {
			if x.w.isText(p) {
				x.texts = append(x.texts, p)
			}
		}
		slices.Sort(x.texts)
	}
	return x.texts
}

// fileCount checks a claimed size or count of the file name.
func (x *checker) fileCount(s *sentence, c count, kind, name string, start, end int) {
	cl := x.claim(s, kind, start, end)
	unit := c.unit
	if kind == kindItems && (unit == "items" && c.noun != "" && c.noun != "items" && !strings.HasPrefix(c.noun, "条")) {
		unit = c.noun
	}
	cl.Said = c.b.said() + " " + pluralUnit(c.b.one(), unit)
	p, found := x.w.resolve(name)
	if !found {
		if x.w.ambiguous(name) {
			cl.Path = name
			x.unchecked(cl, name+" could be several files")
			return
		}
		cl.Path, cl.Measured = name, "does not exist"
		x.falsity(cl, "you said "+name+" has "+cl.Said+"; "+name+" does not exist", name+" does not exist (you said "+cl.Said+")")
		return
	}
	cl.Path = p
	f := x.w.read(p)
	switch {
	case f.isDir:
		x.unchecked(cl, p+" is a folder")
		return
	case f.err != nil:
		if !x.w.exists(p) {
			cl.Measured = "does not exist"
			x.falsity(cl, "you said "+p+" has "+cl.Said+"; "+p+" does not exist", p+" does not exist (you said "+cl.Said+")")
			return
		}
		x.unchecked(cl, p+" could not be read")
		return
	}
	var counts []int
	if kind == kindItems {
		counts = itemCounts(p, f.data, c.noun)
	} else {
		counts = measure(kind, f.data, c.zi, c.noSpaces)
	}
	if len(counts) == 0 {
		x.unchecked(cl, "nothing in "+p+" to count "+unit+" by")
		return
	}
	for _, n := range counts {
		if c.b.holds(float64(n), x.tol) {
			cl.Measured = countOf(n, unit)
			x.truth(cl)
			return
		}
	}
	cl.Measured = countOf(counts[0], unit)
	x.falsity(cl, "you said "+p+" has "+cl.Said+"; it has "+group(float64(counts[0])),
		p+" has "+countOf(counts[0], unit)+", not "+c.b.said())
}
