package claims

import (
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/verify"
)

// Kinds of claims about commands.
const (
	kindTests = "tests"
	kindBuild = "build"
	kindLint  = "lint"
)

// toolNames are the commands a claim may name: "`go test ./...`
// passes", "eslint reports no errors".
const toolNames = `go\s+(?:test|vet|build)(?:\s+(?:-[\w=.-]+|[\w.-]*/[./\w-]*))*|golangci-lint(?:\s+run)?|staticcheck|gofmt(?:\s+-l)?|pytest|py\.test|tox|nox|jest|vitest|mocha|rspec|phpunit|cargo\s+(?:test|build|clippy|check)|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:test|build|lint|check)|make(?:\s+(?:test|check|build|lint|all))?|eslint|ruff(?:\s+check)?|flake8|pylint|mypy|pyright|shellcheck|tsc|mvn\s+\w+|gradle\s+\w+|dotnet\s+(?:test|build)|ctest|rubocop|clippy`

var (
	passWords    = `pass(?:es|ed)?|succeed(?:s|ed)?|(?:is|are)\s+(?:now\s+|all\s+)*(?:green|passing|ok|clean|happy)|(?:runs?|ran|comes?\s+back|came\s+back)\s+(?:green|clean|successfully)|reports?\s+no(?:thing|\s+\w+)|finds?\s+no(?:thing|\s+\w+)|found\s+no(?:thing|\s+\w+)|shows?\s+no\s+\w+|(?:exits?|exited|returns?|returned)\s+(?:with\s+)?(?:status\s+|code\s+)?0\b|(?:is|was)\s+successful`
	testsClaimRe = lazyregexp.New(`(?i)\btests?(?:\s+suites?|\s+cases?)?\s+(?:now\s+|still\s+|all\s+|again\s+|both\s+)*(?:` + passWords + `)|\btest\s+suite\s+(?:now\s+)?(?:` + passWords + `)` +
		`|\b(?:ran|run|executed|re-ran|reran)\s+(?:the\s+|all\s+)?(?:[a-z]+\s+){0,2}?(?:tests?|test\s+suite)\b[^.;\n]{0,40}?\b(?:all\s+)?(?:pass(?:es|ed)?|green|succeeded|ok)\b` +
		`|\bpass(?:es|ed)?\s+(?:all\s+)?(?:the\s+|its\s+|every\s+)?(?:[a-z]+\s+){0,2}?tests\b` +
		`|\btests?\s*:\s*(?:all\s+)?(?:pass(?:ing|ed)?|ok|green|✅|✓|success(?:ful)?)` +
		`|\btests?\b[^;\n]{0,60}?(?:,\s*|\s)(?:and\s+)?(?:all|both|each)\s+(?:of\s+(?:them|these|which)\s+)?(?:pass(?:es|ed)?|are\s+passing|succeed(?:ed)?)\b` +
		`|\b\d+\s+(?:tests?\s+)?passed\b` +
		`|(?:所有|全部)?(?:的)?(?:单元|集成|回归)?测试(?:用例)?(?:已经|已|均|都|全部|全都|也)*(?:通过|跑通|全绿)`)
	buildClaimRe = lazyregexp.New(`(?i)\b(?:the\s+)?build\s+(?:now\s+|still\s+|again\s+)*(?:succeeds|succeeded|passes|passed|is\s+(?:now\s+)?(?:green|clean|fine|ok|successful|passing)|works|worked|(?:completes|completed)(?:\s+(?:successfully|cleanly|without\s+errors))?|went\s+through)\b` +
		`|\bbuild\s*:\s*(?:ok|green|✅|✓|pass(?:ing|ed)?|success(?:ful)?)` +
		`|\b(?:it|the\s+code|code|the\s+project|project|everything|the\s+package|packages|the\s+binary|the\s+module|the\s+crate|the\s+app|the\s+program|the\s+library|the\s+site|the\s+repo)\s+(?:now\s+|still\s+|again\s+|all\s+)*(?:builds|compiles)\b` +
		`|\b(?:compil(?:es|ed|ation)|builds?)\s+(?:cleanly|successfully|succeeded|without\s+(?:errors|warnings)|with\s+no\s+errors)\b` +
		`|\bsuccessfully\s+(?:built|compiled)\b|\bbuilt\s+successfully\b` +
		`|(?:构建|编译|打包)(?:已经|已|均|都|也)*(?:成功|通过)`)
	lintClaimRe = lazyregexp.New(`(?i)\b(?:the\s+)?(?:lint|linter|linters|linting|vet|static\s+analysis|type\s*check(?:er|ing)?|typecheck)\s+(?:now\s+|still\s+|again\s+)*(?:` + passWords + `|pass)\b` +
		`|\bno\s+(?:lint|linter|linting|vet|type|staticcheck|eslint|flake8|ruff|clippy|pylint|mypy)\s+(?:errors|warnings|issues|complaints|findings|problems)\b` +
		`|\b(?:lint|linter)[- ]clean\b|\bpasses\s+(?:the\s+)?(?:lint(?:er|ing)?|vet)\b|\bclean\s+lint\b` +
		`|\blint\s*:\s*(?:ok|green|clean|✅|✓|pass(?:ing|ed)?)` +
		`|(?:lint|代码检查|静态检查|格式检查)(?:已经|已|均|都|也)*(?:通过|无(?:错误|警告|问题))`)
	namedClaimRe = lazyregexp.New("(?i)(?:`([^`\\n]{1,120})`|\\b(" + toolNames + `))(?:\s+(?:now\s+|still\s+|all\s+|again\s+)*(?:` + passWords + `|ok)\b` +
		`|\s*[:—–-]\s*(?:all\s+)?(?:\d+\s+)?(?:tests?\s+)?(?:pass(?:ing|ed|es)?|ok|green|clean|✅|✓)` +
		`|\s*(?:检查|测试|构建|编译)?(?:全部|均|都|已经|已|也)*(?:通过|成功|跑通))`)
	// theyPassRe opens a sentence that says the tests of the sentence
	// before pass: "I added 4 tests to p_test.go; they all pass."
	theyPassRe = lazyregexp.New(`(?i)^(?:and\s+)?(?:they|these|those|all of them|both of them|each of them)\s+(?:now\s+|all\s+)*(?:pass(?:es|ed)?|are\s+(?:all\s+)?passing|succeed(?:ed)?)\b`)
	// failWordRe in a claim's clause makes it about a failure, not a
	// pass: "tests fail", "3 passed, 2 failed".
	failWordRe = lazyregexp.New(`(?i)\b(?:fail|fails|failed|failing|failure|failures|broken|break|breaks|error|errors|skip|skipped|skipping|flaky|except|but)\b|失败|报错|跳过`)
	zeroFailRe = lazyregexp.New(`(?i)\b(?:0|no|zero)\s+(?:tests?\s+)?(?:failed|failures|errors|failing)\b|\bwithout\s+(?:any\s+)?(?:errors|failures|warnings)\b|\bwith\s+no\s+(?:errors|failures|warnings)\b|\bno\s+(?:\w+\s+)?(?:errors|warnings|issues|problems|findings)\b`)
)

// command kinds, by what the command line runs.
var (
	testCmdRe  = lazyregexp.New(`(?i)\bgo\s+test\b|\bpytest\b|\bpy\.test\b|\bpython3?\s+(?:-\w+\s+)*-m\s+(?:pytest|unittest|nose)\b|\bunittest\b|\bnosetests\b|\btox\b|\bnox\b|\bjest\b|\bvitest\b|\bmocha\b|\bava\b|\bkarma\b|\bjasmine\b|\brspec\b|\bphpunit\b|\bctest\b|\bcargo\s+(?:test|nextest)\b|\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|\bnpm\s+t\b|\b(?:deno|bun)\s+test\b|\bmvn\b.*\b(?:test|verify)\b|\bgradlew?\b.*\btest\b|\bdotnet\s+test\b|\bmix\s+test\b|\bswift\s+test\b|\bbats\b|\bprove\b|\btest[\w.-]*\.(?:sh|py|js)\b|\brun[_-]?tests?\b|\btests?/`)
	buildCmdRe = lazyregexp.New(`(?i)\bgo\s+(?:build|install)\b|\bcmake\b|\bninja\b|\bcargo\s+(?:build|check)\b|\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?build\b|\btsc\b|\bgcc\b|\bg\+\+|\bclang\b|\bjavac\b|\bmvn\b.*\b(?:package|compile|install)\b|\bgradlew?\b.*\b(?:build|assemble)\b|\bdotnet\s+build\b|\bdocker\s+build\b|\bbazel\s+build\b|\bpython3?\s+-m\s+(?:build|compileall|py_compile)\b|\bzig\s+build\b|\bswift\s+build\b|\bmeson\b|\brustc\b|\bwebpack\b|\bvite\s+build\b|\bnext\s+build\b|\bhugo\b|\bmkdocs\s+build\b|\bsphinx-build\b`)
	lintCmdRe  = lazyregexp.New(`(?i)\bgo\s+vet\b|\bgolangci-lint\b|\bstaticcheck\b|\brevive\b|\bgofmt\b|\bgoimports\b|\beslint\b|\btslint\b|\bstylelint\b|\bprettier\b|\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?lint\b|\bruff\b|\bflake8\b|\bpylint\b|\bpyflakes\b|\bpycodestyle\b|\bmypy\b|\bpyright\b|\bblack\b|\bisort\b|\bshellcheck\b|\bhadolint\b|\bmarkdownlint\b|\brubocop\b|\bclippy\b|\bcargo\s+fmt\b|\bktlint\b|\bswiftlint\b|\btsc\s+--noEmit\b|\bvale\b|\byamllint\b|\bactionlint\b|\blint\b`)
	// inertCmds cannot run tests, a build or a linter.
	inertCmds = map[string]bool{
		"ls": true, "cat": true, "head": true, "tail": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true,
		"find": true, "fd": true, "echo": true, "printf": true, "pwd": true, "cd": true, "mkdir": true, "rmdir": true,
		"cp": true, "mv": true, "rm": true, "touch": true, "ln": true, "chmod": true, "chown": true, "sed": true, "awk": true,
		"wc": true, "sort": true, "uniq": true, "cut": true, "tr": true, "diff": true, "cmp": true, "file": true, "stat": true,
		"du": true, "df": true, "tree": true, "which": true, "type": true, "env": true, "printenv": true, "date": true,
		"whoami": true, "uname": true, "true": true, "false": true, "sleep": true, "tee": true, "git": true, "less": true,
		"more": true, "jq": true, "yq": true, "basename": true, "dirname": true, "realpath": true, "readlink": true,
		"md5sum": true, "sha256sum": true, "sha1sum": true, "tar": true, "unzip": true, "zip": true, "gzip": true,
		"gunzip": true, "curl": true, "wget": true, "export": true, "set": true, "test": false, "column": true, "nl": true,
		"xxd": true, "od": true, "hexdump": true, "rev": true, "fold": true, "fmt": true, "paste": true, "join": true,
		"comm": true, "iconv": true, "base64": true, "ps": true, "kill": true, "id": true, "hostname": true,
	}
	// compiledTestRe runs tests that build the code first: they bear on a
	// claim that it builds.
	compiledTestRe = lazyregexp.New(`(?i)\bgo\s+test\b|\bcargo\s+(?:test|nextest)\b|\bmvn\b|\bgradlew?\b|\bdotnet\s+test\b|\bswift\s+test\b|\bzig\s+build\s+test\b|\bctest\b`)
	segmentRe      = lazyregexp.New(`&&|\|\||[;|\n]`)
)

// cmdKinds says what a command line runs, part by part (`cd x && go
// test ./...`): tests, a build, a linter, or nothing of the sort (inert:
// ls, cat, git status). A line that is neither might be any of them
// (./ci.sh).
func cmdKinds(line string) (kinds map[string]bool, inert bool) {
	kinds = map[string]bool{}
	inert = true
	for _, seg := range segmentRe.Split(line, -1) {
		f := strings.Fields(seg)
		for len(f) > 0 && (strings.Contains(f[0], "=") || f[0] == "sudo" || f[0] == "time" || f[0] == "command" || f[0] == "exec") {
			f = f[1:]
		}
		if len(f) == 0 || inertCmds[f[0]] {
			continue
		}
		seg = strings.Join(f, " ")
		if f[0] == "make" || f[0] == "gmake" {
			// make's targets say what it runs; none is the default build.
			targets := 0
			for _, t := range f[1:] {
				if strings.HasPrefix(t, "-") || strings.Contains(t, "=") {
					continue
				}
				targets++
				switch strings.ToLower(t) {
				case "test", "tests", "check", "unittest", "test-all", "e2e":
					kinds[kindTests] = true
				case "lint", "vet", "fmt", "format", "check-fmt":
					kinds[kindLint] = true
				default:
					kinds[kindBuild] = true
				}
			}
			if targets == 0 {
				kinds[kindBuild] = true
			}
			inert = false
			continue
		}
		found := false
		for kind, re := range map[string]*lazyregexp.Regexp{kindTests: testCmdRe, kindLint: lintCmdRe, kindBuild: buildCmdRe} {
			if re.MatchString(seg) {
				kinds[kind], found = true, true
			}
		}
		if !found {
			// Not one the check knows: it might run anything.
			inert = false
		}
	}
	if len(kinds) > 0 {
		inert = false
	}
	return kinds, inert
}

// commandClaims reads the claims that tests, a build or a linter ran and
// passed.
func (x *checker) commandClaims(s *sentence) {
	if !mayClaimAPass(s.text) {
		return
	}
	seen := map[string]bool{}
	find := func(re *lazyregexp.Regexp, reKind string) {
		for _, m := range re.FindAllStringSubmatchIndex(s.text, -1) {
			kind := reKind
			if seen[kind] {
				return
			}
			named := ""
			if re == namedClaimRe {
				g := 2
				if m[2] < 0 {
					g = 4
				}
				named = strings.TrimSpace(s.text[m[g]:m[g+1]])
				ks, _ := cmdKinds(named)
				switch {
				case ks[kindTests]:
					kind = kindTests
				case ks[kindLint]:
					kind = kindLint
				case ks[kindBuild]:
					kind = kindBuild
				default:
					continue
				}
				if seen[kind] {
					continue
				}
			}
			if x.claimKilled(s, m[0], m[1]) {
				continue
			}
			if kind == kindTests && re == testsClaimRe && !strings.Contains(strings.ToLower(s.text), "test") && !strings.Contains(s.text, "测试") && !strings.Contains(strings.ToLower(s.text), "pytest") {
				continue
			}
			seen[kind] = true
			x.commandClaim(s, kind, named, m[0], m[1])
		}
	}
	find(namedClaimRe, "")
	if x.prevTests {
		find(theyPassRe, kindTests)
	}
	find(testsClaimRe, kindTests)
	find(buildClaimRe, kindBuild)
	find(lintClaimRe, kindLint)
}

// passHints are the words every claim of a pass holds one of: a sentence
// without any is not read for one (the claim patterns are costly).
var passHints = []string{"pass", "succe", "green", "clean", "ok", "no ", "exit", "return", "complete", "work", "compil",
	"build", "built", "happy", "✅", "✓", "通过", "成功", "跑通", "全绿", "无"}

func mayClaimAPass(text string) bool {
	lower := strings.ToLower(text)
	for _, h := range passHints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// claimKilled reports whether the span [start, end) of s is in a clause
// that denies, hedges or reports a failure.
func (x *checker) claimKilled(s *sentence, start, end int) bool {
	from, to := s.clauseAt(start)[0], s.clauseAt(max(start, end-1))[1]
	text := s.text[from:to]
	if killed(text) {
		return true
	}
	return failWordRe.MatchString(zeroFailRe.ReplaceAllString(text, ""))
}

// saidOf is how a message names a command claim.
func saidOf(kind, named string) string {
	if named != "" {
		return "`" + named + "` passes"
	}
	switch kind {
	case kindTests:
		return "the tests pass"
	case kindBuild:
		return "the build succeeds"
	}
	return "the linter passes"
}

// what names the commands of a kind in a message.
func what(kind string) string {
	switch kind {
	case kindTests:
		return "test command"
	case kindBuild:
		return "build command"
	}
	return "lint command"
}

// commandClaim checks a claim that tests, a build or a linter passed
// against the commands the run ran: the last of that kind decides. A
// claim with no such command behind it is false, unless the run called a
// tool the check cannot see into, or a command it cannot classify.
func (x *checker) commandClaim(s *sentence, kind, named string, start, end int) {
	c := x.claim(s, kind, start, end)
	c.Said = saidOf(kind, named)
	if x.in.Ran == nil {
		x.unchecked(c, "the run's commands are not known here")
		return
	}
	var last *verify.Ran
	var supporting *verify.Ran // a test run, for a build claim: it compiles
	unknownAfter, opaque := false, ""
	for i := range x.in.Ran {
		r := &x.in.Ran[i]
		if r.Path != "" {
			continue // a file tool's write runs nothing
		}
		if r.Command == "" {
			opaque = r.Tool
			unknownAfter = true
			continue
		}
		ks, inert := cmdKinds(r.Command)
		match := ks[kind]
		if match && named != "" && !strings.Contains(normSpace(r.Command), normSpace(named)) && x.ranNamed(named) {
			match = false
		}
		switch {
		case match:
			last, unknownAfter = r, false
		case kind == kindBuild && ks[kindTests] && compiledTestRe.MatchString(r.Command):
			supporting = r
		case !inert && len(ks) == 0:
			unknownAfter = true
		}
	}
	switch {
	case last != nil && last.OK:
		c.Measured = "`" + last.Command + "` exited 0"
		x.truth(c)
	case last == nil && supporting != nil && supporting.OK:
		c.Measured = "`" + supporting.Command + "` built and exited 0"
		x.truth(c)
	case last != nil && !unknownAfter && !multiKind(last.Command):
		status := last.Status
		if status == "" {
			status = "a failure"
		}
		c.Measured = "`" + last.Command + "`: " + status
		x.falsity(c, "you said "+c.Said+"; the last "+what(kind)+", `"+last.Command+"`, ended with "+status,
			"`"+last.Command+"` ended with "+status+" (you said "+c.Said+")")
	case last == nil && supporting == nil && !unknownAfter && opaque == "":
		c.Measured = "no " + what(kind) + " ran"
		x.falsity(c, "you said "+c.Said+"; no "+what(kind)+" ran in this run", "no "+what(kind)+" ran (you said "+c.Said+")")
	case opaque != "":
		x.unchecked(c, "the run called "+opaque+", which the check cannot see into")
	default:
		x.unchecked(c, "the run ran commands the check cannot classify")
	}
}

// ranNamed reports whether some command of the run holds the command a
// claim names: then only those bear on it.
func (x *checker) ranNamed(named string) bool {
	for _, r := range x.in.Ran {
		if strings.Contains(normSpace(r.Command), normSpace(named)) {
			return true
		}
	}
	return false
}

// multiKind reports a command line that runs more than one kind of
// check: its failure does not say which failed.
func multiKind(line string) bool {
	ks, _ := cmdKinds(line)
	return len(ks) > 1
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
