package report

import (
	"bytes"
	"html/template"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// HTML writes a self-contained page: the text report's content and two
// charts rendered offline as SVG (builder steps finished per night, and
// which nights ended early).
func (r *Report) HTML(w io.Writer) error {
	var names []string
	steps := make(plotter.Values, 0, len(r.Nights))
	early := make(plotter.Values, 0, len(r.Nights))
	for _, n := range r.Nights {
		names = append(names, n.Name)
		steps = append(steps, float64(r.stepsOf(n.Name)))
		v := 0.0
		if n.End.Early() {
			v = 1
		}
		early = append(early, v)
	}
	stepsSVG, err := bars("Builder steps finished per night", "steps", names, steps)
	if err != nil {
		return err
	}
	earlySVG, err := bars("Nights that ended early", "ended early (1 = yes)", names, early)
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

// bars renders a bar chart as SVG markup.
func bars(title, ylabel string, names []string, vs plotter.Values) (string, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	if len(vs) == 0 {
		vs = plotter.Values{0}
		names = []string{"(no nights)"}
	}
	b, err := plotter.NewBarChart(vs, vg.Points(20))
	if err != nil {
		return "", err
	}
	p.Add(b)
	p.NominalX(names...)
	wt, err := p.WriterTo(vg.Points(max(320, float64(60*len(vs)))), vg.Points(220), "svg")
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
<p>Across {{.R.Across.Nights}} {{if eq .R.Across.Nights 1}}night{{else}}nights{{end}}, {{.R.Across.EndedEarly}} ended early.</p>
<div class="charts"><figure>{{.Steps}}</figure><figure>{{.Early}}</figure></div>
<h2>Details</h2>
<pre>{{.Text}}</pre>
</body></html>
`))
