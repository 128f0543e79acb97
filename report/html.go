package report

import (
	"bytes"
	"html/template"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// HTML writes a self-contained page: the text report's content and two
// charts rendered offline as SVG (builder steps finished per night, and
// which nights were cut short and which ran out of work).
func (r *Report) HTML(w io.Writer) error {
	var names []string
	steps := make(plotter.Values, 0, len(r.Nights))
	cut := make(plotter.Values, 0, len(r.Nights))
	out := make(plotter.Values, 0, len(r.Nights))
	for _, n := range r.Nights {
		names = append(names, n.Name)
		steps = append(steps, float64(r.stepsOf(n.Name)))
		cut = append(cut, b2f(n.CutShort))
		out = append(out, b2f(n.OutOfWork))
	}
	stepsSVG, err := bars("Builder steps finished per night", "steps", names, series{"", steps})
	if err != nil {
		return err
	}
	earlySVG, err := bars("Nights that ended early", "1 = yes", names, series{"cut short", cut}, series{"out of work", out})
	if err != nil {
		return err
	}
	var text bytes.Buffer
	if err := r.Text(&text); err != nil {
		return err
	}
	return page.Execute(w, map[string]any{
		"Steps": template.HTML(stepsSVG), "Early": template.HTML(earlySVG), "Text": text.String(), "R": r,
	})
}

func (r *Report) stepsOf(night string) int {
	for _, c := range r.Across.BuilderSteps {
		if c.Night == night {
			return c.N
		}
	}
	return 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// series is one named set of bars.
type series struct {
	name string
	vs   plotter.Values
}

// bars renders a bar chart as SVG markup, the series side by side and
// each shaded apart (so that it reads in black and white too).
func bars(title, ylabel string, names []string, ss ...series) (string, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	if len(names) == 0 {
		names = []string{"(no nights)"}
		for i := range ss {
			ss[i].vs = plotter.Values{0}
		}
	}
	width := vg.Points(20)
	for i, s := range ss {
		b, err := plotter.NewBarChart(s.vs, width)
		if err != nil {
			return "", err
		}
		b.Offset = width * vg.Length(2*i-len(ss)+1) / 2
		b.Color = color.Gray{Y: uint8(40 + 120*i)}
		p.Add(b)
		if s.name != "" {
			p.Legend.Add(s.name, b)
		}
	}
	p.Legend.Top = true
	p.NominalX(names...)
	wt, err := p.WriterTo(vg.Points(max(320, float64(60*len(names)*len(ss)))), vg.Points(220), "svg")
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return "", err
	}
	// Drop the XML declaration: the SVG is embedded in HTML.
	out := buf.Bytes()
	if i := bytes.Index(out, []byte("<svg")); i > 0 {
		out = out[i:]
	}
	return string(out), nil
}

var page = template.Must(template.New("report").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>nightshift report</title>
<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}pre{background:#f6f6f6;padding:1em;white-space:pre-wrap}.charts{display:flex;gap:2em;flex-wrap:wrap}</style>
</head><body>
<h1>nightshift: the morning report</h1>
<p>Across {{.R.Across.Nights}} {{if eq .R.Across.Nights 1}}night{{else}}nights{{end}}, {{.R.Across.CutShort}} {{if eq .R.Across.CutShort 1}}was{{else}}were{{end}} cut short by failure handling and {{.R.Across.OutOfWork}} ran out of work ({{.R.Across.EndedEarly}} ended early).</p>
<div class="charts"><figure>{{.Steps}}</figure><figure>{{.Early}}</figure></div>
<h2>Details</h2>
<pre>{{.Text}}</pre>
</body></html>
`))
