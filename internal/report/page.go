// This file is testdata/page.gohtml translated into Go, statement for
// statement (once, by a script that is not kept), so that the binary
// executes no template (html.go says why). The template stays the
// reference: TestThePageIsTheTemplatesPage renders both, on hostile text
// too, and fails while they differ by a byte. Change both the same way.

package report

import "github.com/nightshift-dev/nightshift/ledger"

func (w *pageWriter) page(dot pageView) {
	root := dot
	_ = root
	w.s("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>nightshift · the morning report")
	if w1 := dot.R.Nights; truth(w1) {
		dot := w1
		_ = dot
		w.s(" · ")
		w.v((dot[(len(dot) - 1)]).Name)
	}
	w.s("</title>\n<style>\n:root {\n  --bg: #ffffff; --fg: #1c1c21; --muted: #5d5d66; --line: #d9d9de; --panel: #f5f5f7; --grid: #ececf0;\n  --done: #00805c; --skipped: #c98a00; --failed: #c2410c; --parked: #a4457f; --interrupted: #2f86b8; --running: #1d4ed8;\n  --cut: #c2410c; --out: #2f86b8; --full: #00805c; --heat: #c2410c; --tokens: #6b6b78; --stop: #c2410c;\n  --ink-on: #ffffff;\n}\n@media screen and (prefers-color-scheme: dark) {\n  :root {\n    --bg: #131316; --fg: #e7e7ea; --muted: #a0a0aa; --line: #3a3a42; --panel: #1d1d22; --grid: #2a2a31;\n    --done: #3fbf93; --skipped: #f0b43c; --failed: #ff7b47; --parked: #e492c4; --interrupted: #72c1ee; --running: #7aa7ff;\n    --cut: #ff7b47; --out: #72c1ee; --full: #3fbf93; --heat: #ff7b47; --tokens: #9b9ba8; --stop: #ff7b47;\n    --ink-on: #131316;\n  }\n}\n* { box-sizing: border-box; }\nbody { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, \"Segoe UI\", Roboto, \"DejaVu Sans\", sans-serif; }\nmain { max-width: 1040px; margin: 0 auto; padding: 24px 20px 48px; }\nh1 { font-size: 26px; margin: 0 0 2px; }\nh2 { font-size: 19px; margin: 34px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }\nh3 { font-size: 15px; margin: 18px 0 6px; }\np { margin: 6px 0; }\n.sub, .muted { color: var(--muted); }\ncode { font: 13px/1.4 ui-monospace, \"DejaVu Sans Mono\", Menlo, Consolas, monospace; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 1px 5px; overflow-wrap: anywhere; }\n.numbers { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0 4px; }\n.number { flex: 1 1 220px; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }\n.number b { display: block; font-size: 30px; line-height: 1.1; }\n.number .shape { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px; }\n#needs { border: 2px solid var(--failed); border-radius: 10px; padding: 4px 18px 12px; margin-top: 22px; }\n#needs.calm { border-color: var(--done); }\n#needs h2 { border: 0; margin-top: 12px; }\n#needs ol, #needs ul { list-style: none; margin: 0; padding: 0; }\n#needs li { margin: 8px 0 14px; padding-left: 14px; border-left: 4px solid var(--line); overflow-wrap: anywhere; }\n#needs li.parked { border-left-color: var(--parked); }\n#needs li.system-stop, #needs li.cut-short, #needs li.silent-failure { border-left-color: var(--failed); }\n#needs li.failed-on-every-model, #needs li.unverified { border-left-color: var(--skipped); }\n#needs li .rank { font-weight: 700; margin-right: 6px; }\n#needs .record li { border-left-style: dashed; }\n.tag { display: inline-block; font-size: 12px; font-weight: 600; letter-spacing: .02em; text-transform: uppercase; border: 1px solid currentColor; border-radius: 4px; padding: 0 5px; margin-right: 6px; }\n.tag.system-stop, .tag.cut-short, .tag.silent-failure { color: var(--failed); }\n.tag.parked, .tag.approved-not-run, .tag.expired { color: var(--parked); }\n.tag.failed-on-every-model, .tag.unverified { color: var(--skipped); }\n.cmds { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 4px; }\n.cmds code { white-space: pre-wrap; }\ndetails.full { font-size: 13px; margin: 2px 0; border: 0; padding: 0; }\ndetails.full > summary { font-weight: 400; color: var(--muted); }\ndetails.full p { max-height: 12em; overflow: auto; }\n.title { display: inline-block; max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: bottom; }\nfigure { margin: 14px 0 22px; break-inside: avoid; }\nfigcaption { font-weight: 600; margin-bottom: 2px; }\nfigcaption span { display: block; font-weight: 400; color: var(--muted); font-size: 13px; }\n \nsvg.chart { display: block; max-width: none; }\n.scroll { overflow-x: auto; max-width: 100%; }\nsvg text { fill: var(--fg); font-family: system-ui, -apple-system, \"Segoe UI\", Roboto, \"DejaVu Sans\", sans-serif; }\nsvg .small { font-size: 11px; fill: var(--muted); }\nsvg .label { font-size: 13px; }\nsvg .role { font-size: 13px; font-weight: 600; }\nsvg .axis { stroke: var(--line); stroke-width: 1; }\nsvg .gridline { stroke: var(--grid); stroke-width: 1; }\nsvg .rowband { fill: var(--panel); }\n.mark { stroke-width: 1.5; }\n.mark.done { fill: var(--done); stroke: var(--done); }\n.mark.skipped { fill: url(#hatch-skipped); stroke: var(--skipped); }\n.mark.failed { fill: var(--failed); stroke: var(--failed); }\n.mark.parked { fill: var(--bg); stroke: var(--parked); stroke-width: 2.5; }\n.mark.interrupted { fill: var(--bg); stroke: var(--interrupted); stroke-dasharray: 3 2; stroke-width: 2; }\n.mark.running { fill: var(--running); stroke: var(--running); opacity: .6; }\n.glyph { stroke-width: 2; stroke-linecap: round; }\n.glyph.failed { stroke: var(--failed); fill: none; stroke-width: 2.4; }\n.glyph.skipped { fill: var(--skipped); stroke: none; }\n.glyph.parked { fill: var(--parked); stroke: none; }\n.glyph.interrupted { stroke: var(--interrupted); fill: none; }\n.glyph.running { fill: var(--running); stroke: none; }\n.seg.done { fill: var(--done); }\n.seg.skipped { fill: url(#hatch-skipped); stroke: var(--skipped); }\n.seg.failed { fill: url(#hatch-failed); stroke: var(--failed); }\n.seg.parked { fill: url(#dots-parked); stroke: var(--parked); }\n.seg.tokens { fill: var(--tokens); }\n.segnum { font-size: 11px; font-weight: 600; text-anchor: middle; }\nsvg .segnum.done, svg .segnum.tokens { fill: var(--ink-on); }\nsvg .segnum.skipped, svg .segnum.failed, svg .segnum.parked { fill: var(--fg); paint-order: stroke; stroke: var(--bg); stroke-width: 3px; }\n.total { font-size: 12px; font-weight: 700; text-anchor: middle; }\n.ceiling { stroke: var(--fg); stroke-width: 1.5; stroke-dasharray: 4 3; }\n.endline { stroke: var(--fg); stroke-width: 2; }\n.stopband { fill: var(--stop); opacity: .18; }\n.idleband { fill: var(--parked); opacity: .12; }\n.span.sitting-out { fill: url(#hatch-out); stroke: var(--muted); stroke-width: 1; }\n.span.waiting-for-provider { fill: url(#hatch-out); stroke: var(--muted); stroke-width: 1; stroke-dasharray: 3 2; }\n.span.waiting-for-a-person { fill: var(--parked); fill-opacity: .3; stroke: var(--parked); stroke-width: 1.5; }\n.windowline { stroke: var(--muted); stroke-width: 1.5; stroke-dasharray: 3 3; }\n.pat-out { stroke: var(--muted); stroke-width: 1.2; }\n.seg.cost { fill: var(--tokens); }\n.seg.cost.unknown { fill: url(#hatch-skipped); stroke: var(--tokens); }\n.endmark.wait { fill: var(--parked); }\n.endmark.cut { fill: var(--cut); }\n.endmark.out { fill: none; stroke: var(--out); stroke-width: 2.5; }\n.endmark.full { fill: var(--full); }\n.heat { fill: var(--heat); }\n.cellnum { font-size: 12px; text-anchor: middle; font-weight: 600; }\n.zero { font-size: 11px; text-anchor: middle; fill: var(--muted); }\n.pat-bg { fill: var(--bg); }\n.pat-skipped { stroke: var(--skipped); stroke-width: 2.5; }\n.pat-failed { stroke: var(--failed); stroke-width: 2; }\n.pat-parked { fill: var(--parked); }\n.legend { display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 13px; color: var(--muted); margin: 4px 0 0; padding: 0; list-style: none; }\n.legend li { display: flex; align-items: center; gap: 4px; }\ntable { border-collapse: collapse; width: 100%; font-size: 13px; margin: 8px 0; }\nth, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }\ntd.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }\ndetails { border: 1px solid var(--line); border-radius: 8px; padding: 6px 14px; margin: 10px 0; }\ndetails > summary { cursor: pointer; font-weight: 600; }\ntable.steps td { white-space: nowrap; }\n#trend-table td:nth-child(-n+3) { white-space: nowrap; }\ntable.steps td.detail { white-space: normal; overflow-wrap: anywhere; min-width: 16em; }\nfooter { margin-top: 40px; font-size: 13px; color: var(--muted); }\n@media print {\n  :root { --bg: #fff; --fg: #000; --muted: #444; --line: #bbb; --panel: #f3f3f3; --grid: #e5e5e5; --ink-on: #fff; }\n  body { font-size: 11pt; }\n  main { max-width: none; padding: 0; }\n  #needs, figure, details, .number { break-inside: avoid; }\n  details > summary { list-style: none; }\n  a { color: inherit; text-decoration: none; }\n}\n</style>\n</head>\n<body>\n<svg width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\" class=\"defs\">\n  <defs>\n    <pattern id=\"hatch-skipped\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" class=\"pat-bg\"/><line x1=\"1.5\" y1=\"0\" x2=\"1.5\" y2=\"6\" class=\"pat-skipped\"/></pattern>\n    <pattern id=\"hatch-failed\" width=\"7\" height=\"7\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"7\" height=\"7\" class=\"pat-bg\"/><line x1=\"1\" y1=\"0\" x2=\"1\" y2=\"7\" class=\"pat-failed\"/><line x1=\"0\" y1=\"1\" x2=\"7\" y2=\"1\" class=\"pat-failed\"/></pattern>\n    <pattern id=\"hatch-out\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(-45)\"><rect width=\"5\" height=\"5\" class=\"pat-bg\"/><line x1=\"1\" y1=\"0\" x2=\"1\" y2=\"5\" class=\"pat-out\"/></pattern>\n    <pattern id=\"dots-parked\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><rect width=\"6\" height=\"6\" class=\"pat-bg\"/><circle cx=\"3\" cy=\"3\" r=\"1.6\" class=\"pat-parked\"/></pattern>\n  </defs>\n</svg>\n<main>\n<header>\n  <h1>The morning report</h1>\n  <p class=\"sub\">nightshift · made ")
	w.v(dot.Made)
	w.s(" · ")
	w.v(dot.R.Covers)
	if w2 := dot.Range; truth(w2) {
		dot := w2
		_ = dot
		w.s(" (")
		w.v(dot)
		w.s(")")
	}
	w.s("</p>\n  <div class=\"numbers\" id=\"numbers\">\n    <div class=\"number\" id=\"number-steps\"><b>")
	w.v(dot.LastSteps)
	w.s("</b>builder steps finished last night<br><span class=\"muted\">median ")
	w.v(dot.Median)
	w.s(" a night across ")
	w.v(dot.R.Across.Nights)
	w.s(" ")
	w.v(plural(dot.R.Across.Nights, "night"))
	w.s("</span></div>\n    <div class=\"number\" id=\"number-cut\"><b>")
	w.v(dot.R.Across.CutShort)
	w.s("</b><svg class=\"shape\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path class=\"endmark cut\" d=\"M8 1L15 14H1Z\"/></svg>of ")
	w.v(dot.R.Across.Nights)
	w.s(" ")
	w.v(plural(dot.R.Across.Nights, "night"))
	w.s(" cut short by failure handling</div>\n    <div class=\"number\" id=\"number-out\"><b>")
	w.v(dot.R.Across.OutOfWork)
	w.s("</b><svg class=\"shape\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><circle class=\"endmark out\" cx=\"8\" cy=\"8\" r=\"6\"/></svg>of ")
	w.v(dot.R.Across.Nights)
	w.s(" ")
	w.v(plural(dot.R.Across.Nights, "night"))
	w.s(" out of work</div>\n  </div>\n</header>\n\n<section id=\"needs\" class=\"")
	if truth(!truth(dot.Items)) {
		w.s("calm")
	}
	w.s("\" data-count=\"")
	w.v(len(dot.Items))
	w.s("\">\n  ")
	if truth(!truth(dot.Items)) {
		w.s("\n  <h2>Nothing needs a person.</h2>\n  <p class=\"muted\">No system stop waits for a fix, no parked action for an answer, no role has failed silently since it last worked, no night was cut short since the last one that ran on, no task has failed on every model, and no result waits for a look.</p>\n  ")
	} else {
		w.s("\n  <h2>Needs a person (")
		w.v(len(dot.Items))
		w.s(") <span class=\"muted\">· the most urgent first</span></h2>\n  <ol class=\"items\">\n  ")
		for vi, vit := range dot.Items {
			dot := vit
			_, _ = vi, dot
			w.s("\n    <li class=\"item ")
			w.v(dot.Kind)
			w.s("\" data-kind=\"")
			w.v(dot.Kind)
			w.s("\" data-rank=\"")
			w.v(vi)
			w.s("\"")
			if w3 := dot.Task; truth(w3) {
				dot := w3
				_ = dot
				w.s(" data-task=\"")
				w.v(dot)
				w.s("\"")
			}
			if w4 := dot.Night; truth(w4) {
				dot := w4
				_ = dot
				w.s(" data-night=\"")
				w.v(dot)
				w.s("\"")
			}
			w.s(">\n      <span class=\"rank\">")
			w.v((vi + 1))
			w.s(".</span><span class=\"tag ")
			w.v(dot.Kind)
			w.s("\">")
			w.v(kindText[dot.Kind])
			w.s("</span><span class=\"what\">")
			w.v(dot.What)
			w.s("</span>\n      ")
			if truth((len([]rune(dot.Title)) > TitleRunes)) {
				w.s("<details class=\"full\"><summary>the whole title (")
				w.v(len([]rune(dot.Title)))
				w.s(" characters)</summary><p>")
				w.v(dot.Title)
				w.s("</p></details>")
			}
			w.s("\n      ")
			if w5 := dot.When; truth(w5) {
				dot := w5
				_ = dot
				w.s("<p class=\"when muted\">")
				w.v(dot)
				w.s("</p>")
			}
			w.s("\n      <p class=\"do\"><b>Do:</b> ")
			w.v(dot.Do)
			w.s("</p>\n      ")
			if w6 := dot.Commands; truth(w6) {
				dot := w6
				_ = dot
				w.s("<div class=\"cmds\">")
				for _, dot := range dot {
					w.s("<code class=\"cmd\">")
					w.v(dot)
					w.s("</code>")
				}
				w.s("</div>")
			}
			w.s("\n    </li>\n  ")
		}
		w.s("\n  </ol>\n  ")
	}
	w.s("\n  ")
	if w7 := dot.Record; truth(w7) {
		dot := w7
		_ = dot
		w.s("\n  <h3>For the record <span class=\"muted\">(settled or in hand: nothing to do)</span></h3>\n  <ul class=\"record\">\n  ")
		for _, dot := range dot {
			w.s("\n    <li class=\"parked\" data-task=\"")
			w.v(dot.Task)
			w.s("\" data-status=\"")
			w.v(dot.Status)
			w.s("\"><span class=\"tag ")
			w.v(dot.Status)
			w.s("\">")
			w.v(dot.Status)
			w.s("</span>task ")
			w.v(dot.Task)
			w.s(" “<span class=\"title\" title=\"")
			w.v(dot.Title)
			w.s("\">")
			w.v(clipTitle(dot.Title))
			w.s("</span>” asked to run <code>")
			w.v(dot.Action)
			w.s("</code>\n      ")
			if truth((dot.Status == "approved-not-run")) {
				w.s("<p class=\"muted\">Approved ")
				w.v(stamp(dot.Since, root.Loc))
				w.s(" (")
				w.v(Human(dot.For))
				w.s(" ago): the next night runs it first.</p>\n      ")
			} else {
				w.s("<p class=\"muted\">Deadline ")
				w.v(stamp(dot.Deadline, root.Loc))
				w.s(": ")
				w.v(dot.Then)
				w.s(".</p>")
			}
			w.s("\n    </li>\n  ")
		}
		w.s("\n  </ul>\n  ")
	}
	w.s("\n</section>\n\n")
	if w8 := dot.Last; truth(w8) {
		dot := *w8
		_ = dot
		w.s("\n<section id=\"timeline\" data-night=\"")
		w.v(dot.N.Name)
		w.s("\" data-marks=\"")
		w.v(dot.Timeline.Marks)
		w.s("\">\n  <h2>Last night at a glance: ")
		w.v(dot.N.Name)
		w.s("</h2>\n  ")
		w.summary(dot)
		w.s("\n  ")
		w.timeline(dot)
		w.s("\n  ")
		w.details(dot)
		w.s("\n</section>\n")
	} else {
		w.s("\n<section id=\"timeline\"><h2>Last night at a glance</h2><p>No night in the ledger yet: <code>nightshift night</code> runs one.</p></section>\n")
	}
	w.s("\n\n<section id=\"trends\">\n  <h2>Across ")
	w.v(dot.R.Covers)
	w.s("</h2>\n  ")
	w.bars(dot.Steps)
	w.s("\n  <ul class=\"legend\">")
	for _, dot := range dot.TrendLegend {
		w.s("<li><svg width=\"18\" height=\"14\" viewBox=\"0 0 18 14\" aria-hidden=\"true\"><rect class=\"seg ")
		w.v(dot.Outcome)
		w.s("\" x=\"1\" y=\"1\" width=\"16\" height=\"12\"/></svg>")
		w.v(dot.Outcome)
		w.s("</li>")
	}
	w.s("<li><svg width=\"22\" height=\"14\" viewBox=\"0 0 22 14\" aria-hidden=\"true\"><line class=\"ceiling\" x1=\"1\" y1=\"7\" x2=\"21\" y2=\"7\"/></svg>the builder's ceiling</li></ul>\n  ")
	w.grid(dot.Ends)
	w.s("\n  ")
	w.grid(dot.Fails)
	w.s("\n  ")
	w.bars(dot.Tokens)
	w.s("\n  ")
	w.bars(dot.Cost)
	w.s("\n  <div class=\"scroll\">\n  <table id=\"trend-table\">\n    <thead><tr><th>night</th><th>ended</th><th>counts as</th><th class=\"n\">builder steps</th><th class=\"n\">done</th><th class=\"n\">skipped</th><th class=\"n\">failed</th><th class=\"n\">parked</th><th class=\"n\">tokens</th><th class=\"n\">cost</th><th>failures by scope</th><th class=\"n\">by hand after</th></tr></thead>\n    <tbody>\n    ")
	for _, dot := range dot.R.Trend {
		w.s("<tr data-night=\"")
		w.v(dot.Night)
		w.s("\"><td>")
		w.v(dot.Night)
		w.s("</td><td>")
		w.v(dot.End)
		w.s("</td><td>")
		if truth(dot.CutShort) {
			w.s("cut short")
		} else if truth(dot.OutOfWork) {
			w.s("out of work")
		} else if truth(dot.EndedWaiting) {
			w.s("waiting for a person")
		}
		w.s("</td><td class=\"n\">")
		w.v(dot.Steps)
		w.s("</td><td class=\"n\">")
		w.v(dot.Builder[Outcome("done")])
		w.s("</td><td class=\"n\">")
		w.v(dot.Builder[Outcome("skipped")])
		w.s("</td><td class=\"n\">")
		w.v(dot.Builder[Outcome("failed")])
		w.s("</td><td class=\"n\">")
		w.v(dot.Builder[Outcome("parked")])
		w.s("</td><td class=\"n\">")
		w.v(dot.Tokens)
		w.s("</td><td class=\"n\">")
		w.v(shortCost(dot))
		w.s("</td><td>")
		w.v(scopesText(dot.Failures))
		w.s("</td><td class=\"n\">")
		w.v(dot.ByHandAfter)
		w.s("</td></tr>\n    ")
	}
	w.s("\n    </tbody>\n  </table>\n  </div>\n</section>\n\n")
	if truth(dot.Nights) {
		w.s("\n<section id=\"nights\">\n  <h2>The nights before</h2>\n  ")
		for _, dot := range dot.Nights {
			w.s("\n  <details data-night=\"")
			w.v(dot.N.Name)
			w.s("\">\n    <summary>")
			w.v(dot.N.Name)
			w.s(": ")
			if truth(dot.N.Ended()) {
				w.v(dot.N.End)
				w.s(" at ")
				w.v(hm(dot.N.EndedAt, dot.Loc))
			} else {
				w.s("still running")
			}
			if truth(dot.N.CutShort) {
				w.s(" · cut short")
			} else if truth(dot.N.OutOfWork) {
				w.s(" · out of work")
			}
			w.s(" · builder ")
			w.v(dot.N.Finished[ledger.Role("builder")])
			w.s("</summary>\n    ")
			w.summary(dot)
			w.s("\n    ")
			w.timeline(dot)
			w.s("\n    ")
			w.details(dot)
			w.s("\n  </details>\n  ")
		}
		w.s("\n</section>\n")
	}
	w.s("\n\n<footer>Made by <code>nightshift report --html</code> from the ledger alone. The page loads nothing from anywhere: every chart is drawn in it. The two numbers that say whether failure handling costs work: how many builder steps finish each night, and how many nights end before the clock runs out.</footer>\n</main>\n<script>addEventListener(\"beforeprint\", function () { document.querySelectorAll(\"details\").forEach(function (d) { d.open = true; }); });</script>\n</body>\n</html>\n")
	w.s("\n")
	w.s("\n")
	w.s("\n")
	w.s("\n")
	w.s("\n")
	w.s("\n")
}

func (w *pageWriter) summary(dot nightView) {
	root := dot
	_ = root
	w.s("\n<p>Window ")
	w.v(stamp(dot.N.WindowStart, dot.Loc))
	w.s("–")
	w.v(hm(dot.N.WindowEnd, dot.Loc))
	w.s(" (")
	w.v(dot.Loc)
	w.s(").\n")
	for _, dot := range dot.N.Stops {
		w.s("Stopped ")
		w.v(dot.End)
		w.s(" at ")
		w.v(hm(dot.At, root.Loc))
		w.s(": ")
		w.v(dot.Reason)
		w.s("; resumed at ")
		w.v(hm(dot.ResumedAt, root.Loc))
		w.s(" by ")
		w.v(dot.Owner)
		w.s(". ")
	}
	w.s("\n")
	if truth(dot.N.Ended()) {
		w.s("Ended <b>")
		w.v(dot.N.End)
		w.s("</b> at <b>")
		w.v(hm(dot.N.EndedAt, dot.Loc))
		w.s("</b>: ")
		w.v(dot.N.Reason)
		w.s(".")
	} else {
		w.s("Still running.")
	}
	w.s("\n")
	if truth(dot.N.CutShort) {
		w.s("<b>Counts as cut short</b>: failure handling stopped work before the window closed.")
	} else if truth(dot.N.OutOfWork) {
		w.s("<b>Counts as out of work</b>: nothing was takeable before the window closed.")
	} else if truth(dot.N.EndedWaiting) {
		w.s("<b>Ended waiting for a person</b>: the window closed while the night sat idle for an answer.")
	}
	w.s("</p>\n")
	if w9 := dot.N.Silent; truth(w9) {
		dot := w9
		_ = dot
		w.s("<ul class=\"silent\">")
		for _, dot := range dot {
			w.s("<li data-kind=\"")
			w.v(dot.Kind)
			w.s("\" data-role=\"")
			w.v(dot.Role)
			w.s("\"><span class=\"tag silent-failure\">silent failure</span>")
			w.v(silentNightText(dot))
			w.s("</li>")
		}
		w.s("</ul>")
	}
	w.s("\n<p class=\"muted\">Steps finished: ")
	w.v(dot.Ceilings)
	if truth(dot.N.Interrupted) {
		w.s(" (")
		w.v(dot.N.Interrupted)
		w.s(" interrupted and continued or retried)")
	}
	w.s(" · ")
	w.v(dot.N.Tokens)
	w.s(" tokens")
	if truth(dot.N.Timeline.BudgetTokens) {
		w.s(" of a budget of ")
		w.v(dot.N.Timeline.BudgetTokens)
	}
	w.s(" · cost ")
	w.v(dot.N.Spend.CostText())
	w.s("</p>\n<p class=\"muted\">Builder steps: ")
	w.v(dot.Counts)
	w.s(".</p>\n")
}

func (w *pageWriter) timeline(dot nightView) {
	root := dot
	_ = root
	w.s("\n")
	if w10 := dot.Timeline; truth(w10) {
		dot := w10
		_ = dot
		w.s("\n<figure class=\"timeline\" data-crowded=\"")
		w.v(dot.Crowded)
		w.s("\">\n<div class=\"scroll\"><svg class=\"chart\" width=\"")
		w.v(ff(dot.W))
		w.s("\" height=\"")
		w.v(ff(dot.H))
		w.s("\" viewBox=\"0 0 ")
		w.v(ff(dot.W))
		w.s(" ")
		w.v(ff(dot.H))
		w.s("\" role=\"img\" aria-label=\"")
		w.v(dot.Label)
		w.s("\">\n  ")
		for _, dot := range dot.Idle {
			w.s("<rect class=\"idleband\" data-kind=\"")
			w.v(dot.Kind)
			w.s("\" x=\"")
			w.v(ff(dot.X))
			w.s("\" y=\"")
			w.v(ff(dot.Y))
			w.s("\" width=\"")
			w.v(ff(dot.W))
			w.s("\" height=\"")
			w.v(ff(dot.H))
			w.s("\"><title>")
			w.v(dot.Title)
			w.s("</title></rect>")
		}
		w.s("\n  ")
		for _, dot := range dot.Stops {
			w.s("<rect class=\"stopband\" x=\"")
			w.v(ff(dot.X))
			w.s("\" y=\"")
			w.v(ff(dot.Y))
			w.s("\" width=\"")
			w.v(ff(dot.W))
			w.s("\" height=\"")
			w.v(ff(dot.H))
			w.s("\"><title>")
			w.v(dot.Title)
			w.s("</title></rect>")
		}
		w.s("\n  ")
		for _, dot := range dot.Hours {
			w.s("<line class=\"gridline\" x1=\"")
			w.v(ff(dot.X))
			w.s("\" y1=\"")
			w.v(ff(root.Timeline.Top))
			w.s("\" x2=\"")
			w.v(ff(dot.X))
			w.s("\" y2=\"")
			w.v(ff(root.Timeline.Bottom))
			w.s("\"/><text class=\"small\" x=\"")
			w.v(ff(dot.X))
			w.s("\" y=\"")
			w.v(ff(dot.Y))
			w.s("\" text-anchor=\"middle\">")
			w.v(dot.Label)
			w.s("</text>")
		}
		w.s("\n  <line class=\"axis\" x1=\"")
		w.v(ff(dot.X0))
		w.s("\" y1=\"")
		w.v(ff(dot.Bottom))
		w.s("\" x2=\"")
		w.v(ff(dot.X1))
		w.s("\" y2=\"")
		w.v(ff(dot.Bottom))
		w.s("\"/>\n  ")
		for _, dot := range dot.Window {
			w.s("<g class=\"window\"><line class=\"windowline\" x1=\"")
			w.v(ff(dot.X))
			w.s("\" y1=\"")
			w.v(ff(dot.Y1))
			w.s("\" x2=\"")
			w.v(ff(dot.X))
			w.s("\" y2=\"")
			w.v(ff(dot.Y2))
			w.s("\"/><text class=\"small\" x=\"")
			w.v(ff(dot.X))
			w.s("\" y=\"")
			w.v(ff(dot.Y2))
			w.s("\" dx=\"")
			if truth((dot.Anchor == "end")) {
				w.s("-4")
			} else {
				w.s("4")
			}
			w.s("\" dy=\"12\" text-anchor=\"")
			w.v(dot.Anchor)
			w.s("\">")
			w.v(dot.Label)
			w.s("</text></g>")
		}
		w.s("\n  ")
		for _, dot := range dot.Rows {
			w.s("\n  <g class=\"row")
			if truth(dot.Waits) {
				w.s(" waits")
			}
			w.s("\" data-role=\"")
			w.v(dot.Role)
			w.s("\" data-worker=\"")
			w.v(dot.Worker)
			w.s("\" data-steps=\"")
			w.v(dot.Steps)
			w.s("\">\n    <line class=\"gridline\" x1=\"0\" y1=\"")
			w.v(ff(dot.Y))
			w.s("\" x2=\"")
			w.v(ff(root.Timeline.X1))
			w.s("\" y2=\"")
			w.v(ff(dot.Y))
			w.s("\"/>\n    ")
			if truth(dot.First) {
				w.s("<text class=\"role\" x=\"0\" y=\"")
				w.v(ff(dot.BarY))
				w.s("\">")
				w.v(dot.Role)
				w.s("</text><text class=\"small\" x=\"0\" y=\"")
				w.v(ff(dot.BarY))
				w.s("\" dy=\"14\">")
				w.v(dot.Ceiling)
				w.s("</text>")
			}
			w.s("\n    <text class=\"label\" x=\"")
			w.v(ff(root.Timeline.X0))
			w.s("\" y=\"")
			w.v(ff(dot.BarY))
			w.s("\" dx=\"-8\" dy=\"10\" text-anchor=\"end\">")
			w.v(dot.Worker)
			w.s("</text>\n    ")
			for _, dot := range dot.Spans {
				w.s("<rect class=\"span ")
				w.v(dot.Kind)
				w.s("\" data-kind=\"")
				w.v(dot.Kind)
				w.s("\"")
				if w11 := dot.Task; truth(w11) {
					dot := w11
					_ = dot
					w.s(" data-task=\"")
					w.v(dot)
					w.s("\"")
				}
				w.s(" x=\"")
				w.v(ff(dot.X))
				w.s("\" y=\"")
				w.v(ff(dot.Y))
				w.s("\" width=\"")
				w.v(ff(dot.W))
				w.s("\" height=\"")
				w.v(ff(dot.H))
				w.s("\" rx=\"1.5\"><title>")
				w.v(dot.Title)
				w.s("</title></rect>")
			}
			w.s("\n    ")
			for _, vm := range dot.Marks {
				dot := vm
				_ = dot
				w.s("<g class=\"m\" data-outcome=\"")
				w.v(vm.Outcome)
				w.s("\" data-lane=\"")
				w.v(vm.Lane)
				w.s("\"")
				if truth(vm.Task) {
					w.s(" data-task=\"")
					w.v(vm.Task)
					w.s("\"")
				}
				w.s("><title>")
				w.v(vm.Title)
				w.s("</title><rect class=\"mark ")
				w.v(vm.Outcome)
				w.s("\" x=\"")
				w.v(ff(vm.X))
				w.s("\" y=\"")
				w.v(ff(vm.Y))
				w.s("\" width=\"")
				w.v(ff(vm.W))
				w.s("\" height=\"")
				w.v(ff(vm.H))
				w.s("\" rx=\"1.5\"/>")
				if w12 := vm.Glyph; truth(w12) {
					dot := w12
					_ = dot
					w.s("<path class=\"glyph ")
					w.v(vm.Outcome)
					w.s("\" d=\"")
					w.v(dot)
					w.s("\"/>")
				}
				w.s("</g>")
			}
			w.s("\n  </g>\n  ")
		}
		w.s("\n  ")
		if w13 := dot.End; truth(w13) {
			dot := w13
			_ = dot
			w.s("<g class=\"end\"><line class=\"endline\" x1=\"")
			w.v(ff(dot.X))
			w.s("\" y1=\"")
			w.v(ff(dot.Y1))
			w.s("\" x2=\"")
			w.v(ff(dot.X))
			w.s("\" y2=\"")
			w.v(ff(dot.Y2))
			w.s("\"/><text class=\"label\" x=\"")
			w.v(ff(dot.X))
			w.s("\" y=\"")
			w.v(ff(dot.Y1))
			w.s("\" dx=\"")
			if truth((dot.Anchor == "end")) {
				w.s("-4")
			} else {
				w.s("4")
			}
			w.s("\" dy=\"-2\" text-anchor=\"")
			w.v(dot.Anchor)
			w.s("\">")
			w.v(dot.Label)
			w.s("</text></g>")
		}
		w.s("\n  ")
		if w14 := dot.Note; truth(w14) {
			dot := w14
			_ = dot
			w.s("<text class=\"small windownote\" x=\"")
			w.v(ff(dot.X))
			w.s("\" y=\"")
			w.v(ff(dot.Y))
			w.s("\" text-anchor=\"end\">")
			w.v(dot.Label)
			w.s("</text>")
		}
		w.s("\n</svg></div>\n")
		if truth(root.Legend) {
			w.s("<ul class=\"legend\">")
			for _, vl := range root.Legend {
				dot := vl
				_ = dot
				w.s("<li><svg width=\"36\" height=\"16\" viewBox=\"0 0 36 16\" aria-hidden=\"true\"><rect class=\"mark ")
				w.v(vl.Outcome)
				w.s("\" x=\"2\" y=\"4\" width=\"16\" height=\"9\" rx=\"1.5\"/>")
				if w15 := vl.Glyph; truth(w15) {
					dot := w15
					_ = dot
					w.s("<path class=\"glyph ")
					w.v(vl.Outcome)
					w.s("\" d=\"")
					w.v(dot)
					w.s("\"/>")
				}
				w.s("</svg>")
				w.v(vl.Text)
				w.s("</li>")
			}
			w.s("<li><svg width=\"18\" height=\"14\" viewBox=\"0 0 18 14\" aria-hidden=\"true\"><rect class=\"stopband\" x=\"1\" y=\"1\" width=\"16\" height=\"12\"/></svg>stopped until resumed</li><li><svg width=\"18\" height=\"14\" viewBox=\"0 0 18 14\" aria-hidden=\"true\"><rect class=\"idleband\" x=\"1\" y=\"1\" width=\"16\" height=\"12\"/></svg>idle, waiting for a person</li><li><svg width=\"18\" height=\"14\" viewBox=\"0 0 18 14\" aria-hidden=\"true\"><rect class=\"span sitting-out\" x=\"1\" y=\"1\" width=\"16\" height=\"12\"/></svg>sitting out the rest of the night</li><li><svg width=\"18\" height=\"14\" viewBox=\"0 0 18 14\" aria-hidden=\"true\"><rect class=\"span waiting-for-provider\" x=\"1\" y=\"1\" width=\"16\" height=\"12\"/></svg>waiting for its provider</li><li><svg width=\"18\" height=\"14\" viewBox=\"0 0 18 14\" aria-hidden=\"true\"><rect class=\"span waiting-for-a-person\" x=\"1\" y=\"1\" width=\"16\" height=\"12\"/></svg>a task waiting for a person</li><li><svg width=\"22\" height=\"14\" viewBox=\"0 0 22 14\" aria-hidden=\"true\"><line class=\"windowline\" x1=\"11\" y1=\"0\" x2=\"11\" y2=\"14\"/></svg>the window's end</li></ul>")
		}
		w.s("\n</figure>\n")
	}
	w.s("\n")
	if truth(dot.StepList) {
		w.s("\n<details class=\"steplist\"><summary>Every step, in order (")
		w.v(len(dot.StepList))
		w.s(")")
		if truth(dot.Timeline.Crowded) {
			w.s(": ")
			w.v(dot.Timeline.Crowded)
			w.s(" drawn over others")
		}
		w.s("</summary>\n<div class=\"scroll\"><table class=\"steps\">\n<thead><tr><th>from</th><th>to</th><th>worker</th><th>task</th><th>ended</th><th>what it did</th></tr></thead>\n<tbody>")
		for _, dot := range dot.StepList {
			w.s("<tr data-outcome=\"")
			w.v(dot.Outcome)
			w.s("\"><td>")
			w.v(dot.From)
			w.s("</td><td>")
			w.v(dot.To)
			w.s("</td><td>")
			w.v(dot.Role)
			w.s("/")
			w.v(dot.Worker)
			w.s("</td><td>")
			if truth(dot.Task) {
				w.v(dot.Task)
				w.s(" <span class=\"title\" title=\"")
				w.v(dot.Title)
				w.s("\">")
				w.v(clipTitle(dot.Title))
				w.s("</span>")
			}
			w.s("</td><td>")
			w.v(dot.Outcome)
			w.s("</td><td class=\"detail\">")
			w.v(dot.Detail)
			w.s("</td></tr>")
		}
		w.s("</tbody>\n</table></div>\n</details>\n")
	}
	w.s("\n")
}

func (w *pageWriter) details(dot nightView) {
	root := dot
	_ = root
	w.s("\n")
	if truth(dot.N.Failures) {
		w.s("\n<h3>Failures (")
		w.v(len(dot.N.Failures))
		w.s("): ")
		w.v(dot.Scopes)
		w.s("</h3>\n<div class=\"scroll\"><table class=\"failures\">\n<thead><tr><th>time</th><th>scope</th><th>rule</th><th>task</th><th>worker</th><th>why</th></tr></thead>\n<tbody>")
		for _, dot := range dot.N.Failures {
			w.s("<tr data-scope=\"")
			w.v(dot.Scope)
			w.s("\"><td>")
			w.v(hm(dot.At, root.Loc))
			w.s("</td><td>")
			w.v(dot.Scope)
			w.s("</td><td>")
			w.v(dot.Rule)
			w.s("</td><td>")
			if truth(dot.Task) {
				w.v(dot.Task)
			}
			w.s("</td><td>")
			if truth(dot.Manual) {
				w.s("by hand")
			} else {
				w.v(dot.Worker)
			}
			w.s("</td><td>")
			w.v(dot.Reason)
			w.s("</td></tr>")
		}
		w.s("</tbody>\n</table></div>\n")
	}
	w.s("\n")
	if truth(dot.N.ByHandAfter) {
		w.s("\n<h3>Recorded by hand after the night (")
		w.v(len(dot.N.ByHandAfter))
		w.s(")</h3>\n<div class=\"scroll\"><table class=\"failures byhand\">\n<thead><tr><th>when</th><th>scope</th><th>rule</th><th>task</th><th>why</th></tr></thead>\n<tbody>")
		for _, dot := range dot.N.ByHandAfter {
			w.s("<tr data-scope=\"")
			w.v(dot.Scope)
			w.s("\" data-task=\"")
			w.v(dot.Task)
			w.s("\"><td>")
			w.v(stamp(dot.At, root.Loc))
			w.s("</td><td>")
			w.v(dot.Scope)
			w.s("</td><td>")
			w.v(dot.Rule)
			w.s("</td><td>")
			w.v(dot.Task)
			w.s("</td><td>")
			w.v(dot.Reason)
			w.s("</td></tr>")
		}
		w.s("</tbody>\n</table></div>\n")
	}
	w.s("\n")
	if w16 := dot.N.Dropped; truth(w16) {
		dot := w16
		_ = dot
		w.s("<p class=\"muted dropped\">Given up: ")
		for vi, vd := range dot {
			dot := vd
			_, _ = vi, dot
			if truth(vi) {
				w.s("; ")
			}
			w.s("task ")
			w.v(vd.Task)
			w.s(" (")
			w.v(vd.Was)
			w.s(", ")
			w.v(stamp(vd.At, root.Loc))
			if w17 := vd.Reason; truth(w17) {
				dot := w17
				_ = dot
				w.s(": ")
				w.v(dot)
			}
			w.s(")")
		}
		w.s(".</p>")
	}
	w.s("\n")
	if w18 := dot.Checks; truth(w18) {
		dot := w18
		_ = dot
		w.s("<p class=\"muted\">FAILs by check: ")
		w.v(dot)
		w.s("</p>")
	}
	w.s("\n")
	if truth(dot.N.Notes) {
		w.s("<h3>Notes</h3><ul>")
		for _, dot := range dot.N.Notes {
			w.s("<li>")
			w.v(dot.Kind)
			w.s(": ")
			w.v(dot.Text)
			w.s("</li>")
		}
		w.s("</ul>")
	}
	w.s("\n")
}

func (w *pageWriter) bars(dot chartView) {
	root := dot
	_ = root
	w.s("\n<figure id=\"")
	w.v(dot.ID)
	w.s("\" data-nights=\"")
	w.v(len(dot.Cols))
	w.s("\">\n<figcaption>")
	w.v(dot.Caption)
	w.s("<span>")
	w.v(dot.Summary)
	w.s("</span></figcaption>\n")
	if truth(dot.Empty) {
		w.s("<p class=\"muted\">")
		w.v(dot.Empty)
		w.s("</p>")
	} else {
		w.s("\n<div class=\"scroll\"><svg class=\"chart\" width=\"")
		w.v(ff(dot.W))
		w.s("\" height=\"")
		w.v(ff(dot.H))
		w.s("\" viewBox=\"0 0 ")
		w.v(ff(dot.W))
		w.s(" ")
		w.v(ff(dot.H))
		w.s("\" role=\"img\" aria-label=\"")
		w.v(dot.Label)
		w.s("\">\n  ")
		for _, dot := range dot.YTicks {
			w.s("<line class=\"gridline\" x1=\"")
			w.v(ff(root.Left))
			w.s("\" y1=\"")
			w.v(ff(dot.Y))
			w.s("\" x2=\"")
			w.v(ff(root.X1))
			w.s("\" y2=\"")
			w.v(ff(dot.Y))
			w.s("\"/><text class=\"small\" x=\"")
			w.v(ff(dot.X))
			w.s("\" y=\"")
			w.v(ff(dot.Y))
			w.s("\" dy=\"4\" text-anchor=\"end\">")
			w.v(dot.Label)
			w.s("</text>")
		}
		w.s("\n  <line class=\"axis\" x1=\"")
		w.v(ff(dot.Left))
		w.s("\" y1=\"")
		w.v(ff(dot.Bottom))
		w.s("\" x2=\"")
		w.v(ff(dot.X1))
		w.s("\" y2=\"")
		w.v(ff(dot.Bottom))
		w.s("\"/>\n  ")
		for _, dot := range dot.Cols {
			w.s("\n  <g class=\"col\" data-night=\"")
			w.v(dot.Night)
			w.s("\" data-value=\"")
			w.v(dot.N)
			w.s("\"")
			if w19 := dot.USD; truth(w19) {
				dot := w19
				_ = dot
				w.s(" data-usd=\"")
				w.v(dot)
				w.s("\"")
			}
			w.s("><title>")
			w.v(dot.Title)
			w.s("</title>\n    ")
			for _, dot := range dot.Segs {
				w.s("<rect class=\"seg ")
				w.v(dot.Class)
				w.s("\" x=\"")
				w.v(ff(dot.X))
				w.s("\" y=\"")
				w.v(ff(dot.Y))
				w.s("\" width=\"")
				w.v(ff(dot.W))
				w.s("\" height=\"")
				w.v(ff(dot.H))
				w.s("\"/>")
				if truth(dot.Inside) {
					w.s("<text class=\"segnum ")
					w.v(dot.Class)
					w.s("\" x=\"")
					w.v(ff(dot.CX))
					w.s("\" y=\"")
					w.v(ff(dot.TextY))
					w.s("\">")
					w.v(dot.Count)
					w.s("</text>")
				}
			}
			w.s("\n    ")
			if truth(dot.Ceiling) {
				w.s("<line class=\"ceiling\" x1=\"")
				w.v(ff(dot.BarX))
				w.s("\" y1=\"")
				w.v(ff(dot.CeilingY))
				w.s("\" x2=\"")
				w.v(ff(dot.BarX1))
				w.s("\" y2=\"")
				w.v(ff(dot.CeilingY))
				w.s("\"/>")
			}
			w.s("\n    <text class=\"total\" x=\"")
			w.v(ff(dot.CX))
			w.s("\" y=\"")
			w.v(ff(dot.TotalY))
			w.s("\">")
			w.v(dot.Total)
			w.s("</text>\n    ")
			w.collabel(dot)
			w.s("\n  </g>\n  ")
		}
		w.s("\n</svg></div>\n")
	}
	w.s("\n</figure>\n")
}

func (w *pageWriter) collabel(dot colView) {
	root := dot
	_ = root
	if truth(dot.Rotate) {
		w.s("<text class=\"small\" x=\"")
		w.v(ff(dot.CX))
		w.s("\" y=\"")
		w.v(ff(dot.LabelY))
		w.s("\" text-anchor=\"end\" transform=\"rotate(-60 ")
		w.v(ff(dot.CX))
		w.s(" ")
		w.v(ff(dot.LabelY))
		w.s(")\">")
		w.v(dot.Label)
		w.s("</text>")
	} else {
		w.s("<text class=\"small\" x=\"")
		w.v(ff(dot.CX))
		w.s("\" y=\"")
		w.v(ff(dot.LabelY))
		w.s("\" text-anchor=\"middle\">")
		w.v(dot.Label)
		w.s("</text>")
	}
}

func (w *pageWriter) grid(dot chartView) {
	root := dot
	_ = root
	w.s("\n<figure id=\"")
	w.v(dot.ID)
	w.s("\" data-nights=\"")
	w.v(len(dot.Cols))
	w.s("\">\n<figcaption>")
	w.v(dot.Caption)
	w.s("<span>")
	w.v(dot.Summary)
	w.s("</span></figcaption>\n")
	if truth(dot.Empty) {
		w.s("<p class=\"muted\">")
		w.v(dot.Empty)
		w.s("</p>")
	} else {
		w.s("\n<div class=\"scroll\"><svg class=\"chart\" width=\"")
		w.v(ff(dot.W))
		w.s("\" height=\"")
		w.v(ff(dot.H))
		w.s("\" viewBox=\"0 0 ")
		w.v(ff(dot.W))
		w.s(" ")
		w.v(ff(dot.H))
		w.s("\" role=\"img\" aria-label=\"")
		w.v(dot.Label)
		w.s("\">\n  ")
		for _, dot := range dot.Rows {
			w.s("\n  <g class=\"gridrow\" data-row=\"")
			w.v(dot.Name)
			w.s("\" data-total=\"")
			w.v(dot.Total)
			w.s("\">\n    <line class=\"gridline\" x1=\"0\" y1=\"")
			w.v(ff(dot.Y))
			w.s("\" x2=\"")
			w.v(ff(root.X1))
			w.s("\" y2=\"")
			w.v(ff(dot.Y))
			w.s("\"/>\n    <text class=\"label\" x=\"0\" y=\"")
			w.v(ff(dot.CY))
			w.s("\" dy=\"4\">")
			w.v(dot.Name)
			w.s("</text>\n    ")
			vrow := dot
			_ = vrow
			for _, dot := range dot.Cells {
				w.s("<g class=\"cell\" data-night=\"")
				w.v(dot.Night)
				w.s("\" data-n=\"")
				w.v(dot.N)
				w.s("\">")
				if truth(dot.Title) {
					w.s("<title>")
					w.v(dot.Title)
					w.s("</title>")
				}
				if truth(dot.Mark) {
					w.s("<path class=\"endmark ")
					w.v(vrow.Class)
					w.s("\" d=\"")
					w.v(dot.Mark)
					w.s("\"/>")
				} else if truth(dot.Heat) {
					w.s("<rect class=\"heat\" x=\"")
					w.v(ff(dot.X))
					w.s("\" y=\"")
					w.v(ff(dot.Y))
					w.s("\" width=\"")
					w.v(ff(dot.W))
					w.s("\" height=\"")
					w.v(ff(dot.H))
					w.s("\" opacity=\"")
					w.v(ff(dot.Heat))
					w.s("\"/><text class=\"cellnum\" x=\"")
					w.v(ff(dot.CX))
					w.s("\" y=\"")
					w.v(ff(dot.TextY))
					w.s("\">")
					w.v(dot.N)
					w.s("</text>")
				} else if truth(root.Zeros) {
					w.s("<text class=\"zero\" x=\"")
					w.v(ff(dot.CX))
					w.s("\" y=\"")
					w.v(ff(dot.TextY))
					w.s("\">·</text>")
				}
				w.s("</g>")
			}
			w.s("\n    <text class=\"label total-of\" x=\"")
			w.v(ff(root.X1))
			w.s("\" y=\"")
			w.v(ff(dot.CY))
			w.s("\" dx=\"12\" dy=\"4\">")
			w.v(dot.Total)
			w.s("</text>\n  </g>\n  ")
		}
		w.s("\n  <line class=\"axis\" x1=\"")
		w.v(ff(dot.Left))
		w.s("\" y1=\"")
		w.v(ff(dot.Bottom))
		w.s("\" x2=\"")
		w.v(ff(dot.X1))
		w.s("\" y2=\"")
		w.v(ff(dot.Bottom))
		w.s("\"/>\n  ")
		for _, dot := range dot.Cols {
			w.collabel(dot)
		}
		w.s("\n</svg></div>\n")
	}
	w.s("\n</figure>\n")
}
