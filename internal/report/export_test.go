package report

import (
	_ "embed"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nightshift-dev/nightshift/gate"
	"github.com/nightshift-dev/nightshift/ledger"
)

//go:embed testdata/page.gohtml
var pageSource string

// templatePage is testdata/page.gohtml parsed, with the functions it
// calls: the page as html/template writes it, which HTML's page.go must
// write byte for byte.
var templatePage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"f":       ff,
		"stamp":   stamp,
		"hm":      hm,
		"escape":  gate.Escape,
		"dur":     func(d time.Duration) string { return roundDur(d).String() },
		"plural":  plural,
		"join":    strings.Join,
		"sub":     func(a, b int) int { return a - b },
		"add":     func(a, b int) int { return a + b },
		"out":     func(m map[Outcome]int, o string) int { return m[Outcome(o)] },
		"role":    func(m map[ledger.Role]int, r string) int { return m[ledger.Role(r)] },
		"scopes":  scopesText,
		"cost":    shortCost,
		"kind":    func(k string) string { return kindText[k] },
		"clipped": func(s string) bool { return len([]rune(s)) > TitleRunes },
		"clip":    clipTitle,
		"runes":   func(s string) int { return len([]rune(s)) },
		"human":   Human,
		"silent":  silentNightText,
	}).Parse(pageSource))
})

// TemplateHTML writes r's page with the template, as HTML did before
// page.go.
func TemplateHTML(r *Report, w io.Writer) error { return templatePage().Execute(w, r.view()) }
