package report_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/internal/report"
	"github.com/nightshift-dev/nightshift/ledger"
)

// chromium finds a headless Chromium: $NIGHTSHIFT_CHROMIUM, or Debian's
// chromium (what .ci/run installs), or Chrome.
func chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("NIGHTSHIFT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium binary (Debian: apt-get install -y chromium; or set NIGHTSHIFT_CHROMIUM): the page is not checked in a browser")
	return ""
}

// render loads page in headless Chromium and returns the DOM it built
// (--dump-dom), after the page's scripts ran. extra are more flags.
func render(t testing.TB, bin, page string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	size := "--window-size=1100,3000"
	for _, e := range extra {
		if strings.HasPrefix(e, "--window-size=") {
			size = e
		}
	}
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir(), size, "--dump-dom"}, slices.DeleteFunc(slices.Clone(extra), func(e string) bool { return strings.HasPrefix(e, "--window-size=") })...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	// Chromium's helpers are its children: the whole group goes with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // gone already, as a rule
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	return string(out)
}

// probe is the script the test adds to a copy of the page: it measures
// what the browser drew and writes it into the DOM, which --dump-dom
// prints.
const probe = `<script>
(function () {
  function box(el) {
    if (!el) return null;
    var r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return {w: r.width, h: r.height, shown: r.width > 0 && r.height > 0 && s.display !== "none" && s.visibility !== "hidden"};
  }
  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  // The earlier nights' accounts, folded, are opened to be measured.
  all("#nights > details").forEach(function (d) { d.open = true; });
  function night(el) { var n = el.closest("[data-night]"); return n ? n.dataset.night : ""; }
  var needs = document.getElementById("needs");
  var out = {
    needs: {box: box(needs), count: needs && needs.dataset.count, text: needs && needs.innerText,
      items: all("#needs ol.items > li").map(function (li) {
        var r = li.getBoundingClientRect();
        return {kind: li.dataset.kind, w: r.width, h: r.height, cmds: all("code.cmd", li).map(function (c) { return c.textContent; })};
      })},
    charts: all("svg.chart").map(function (svg) {
      var f = svg.closest("figure"), sc = svg.parentElement;
      return {figure: f ? (f.id || f.className) : "", night: night(svg), w: svg.getBoundingClientRect().width, attr: +svg.getAttribute("width"),
        client: sc.clientWidth, scroll: sc.scrollWidth, scrolls: getComputedStyle(sc).overflowX};
    }),
    smallest: all("#timeline svg text, #trends svg text").reduce(function (a, e) {
      var h = e.getBoundingClientRect().height; return h > 0 && h < a ? h : a; }, 1e9),
    page: {scroll: document.documentElement.scrollWidth, inner: innerWidth},
    lanes: all("#timeline g.row").map(function (g) {
      return {worker: g.dataset.worker, marks: all("g.m", g).map(function (m) {
        var r = m.querySelector("rect").getBoundingClientRect();
        return {lane: +m.dataset.lane, x: r.left, w: r.width};
      })};
    }),
    spans: all("rect.span, rect.idleband").map(function (r) {
      var b = r.getBoundingClientRect();
      return {kind: r.dataset.kind || "", night: night(r), w: b.width, h: b.height, title: (r.querySelector("title") || {}).textContent || ""};
    }),
    hours: all("#timeline svg.chart > text.small").map(function (e) { return e.textContent; }),
    note: (document.querySelector("#timeline text.windownote") || {}).textContent,
    steplist: all("#timeline table.steps tbody tr").length,
    cost: all("#trend-cost g.col").map(function (g) {
      return {night: g.dataset.night, usd: g.dataset.usd, total: g.querySelector("text.total").textContent, title: g.querySelector("title").textContent};
    }),
    byhand: (document.querySelector('#trend-failures g.gridrow[data-row="by hand, after"]') || {dataset: {}}).dataset.total,
    timeline: {box: box(document.querySelector("#timeline svg.chart")),
      marks: all("#timeline g.m").map(function (g) {
        var r = g.querySelector("rect").getBoundingClientRect();
        return {outcome: g.dataset.outcome, w: r.width, h: r.height, title: g.querySelector("title").textContent};
      }),
      end: (document.querySelector("#timeline g.end text") || {}).textContent},
    steps: {box: box(document.querySelector("#trend-steps svg")),
      cols: all("#trend-steps g.col").map(function (g) {
        return {night: g.dataset.night, value: +g.dataset.value, total: g.querySelector("text.total").textContent,
          h: all("rect.seg", g).reduce(function (a, r) { return a + r.getBoundingClientRect().height; }, 0)};
      })},
    ends: {box: box(document.querySelector("#trend-ends svg")),
      rows: all("#trend-ends g.gridrow").map(function (r) {
        return {row: r.dataset.row, total: r.querySelector("text.total-of").textContent,
          nights: all("g.cell", r).filter(function (c) { return c.dataset.n === "1" && c.querySelector("path").getBoundingClientRect().width > 0; })
            .map(function (c) { return c.dataset.night; })};
      })},
    failures: {box: box(document.querySelector("#trend-failures svg"))},
    background: getComputedStyle(document.body).backgroundColor,
    loaded: performance.getEntriesByType("resource").map(function (e) { return e.name; })
  };
  var pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

type measurement struct {
	Needs struct {
		Box   box    `json:"box"`
		Count string `json:"count"`
		Text  string `json:"text"`
		Items []struct {
			Kind string   `json:"kind"`
			W    float64  `json:"w"`
			H    float64  `json:"h"`
			Cmds []string `json:"cmds"`
		} `json:"items"`
	} `json:"needs"`
	Charts []struct {
		Figure  string  `json:"figure"`
		Night   string  `json:"night"`
		W       float64 `json:"w"`
		Attr    float64 `json:"attr"`
		Client  float64 `json:"client"`
		Scroll  float64 `json:"scroll"`
		Scrolls string  `json:"scrolls"`
	} `json:"charts"`
	Smallest float64 `json:"smallest"`
	Page     struct {
		Scroll float64 `json:"scroll"`
		Inner  float64 `json:"inner"`
	} `json:"page"`
	Lanes []struct {
		Worker string `json:"worker"`
		Marks  []struct {
			Lane int     `json:"lane"`
			X    float64 `json:"x"`
			W    float64 `json:"w"`
		} `json:"marks"`
	} `json:"lanes"`
	Spans []struct {
		Kind  string  `json:"kind"`
		Night string  `json:"night"`
		W     float64 `json:"w"`
		H     float64 `json:"h"`
		Title string  `json:"title"`
	} `json:"spans"`
	Hours    []string `json:"hours"`
	Note     string   `json:"note"`
	StepList int      `json:"steplist"`
	Cost     []struct {
		Night string `json:"night"`
		USD   string `json:"usd"`
		Total string `json:"total"`
		Title string `json:"title"`
	} `json:"cost"`
	ByHand   string `json:"byhand"`
	Timeline struct {
		Box   box `json:"box"`
		Marks []struct {
			Outcome string  `json:"outcome"`
			W       float64 `json:"w"`
			H       float64 `json:"h"`
			Title   string  `json:"title"`
		} `json:"marks"`
		End string `json:"end"`
	} `json:"timeline"`
	Steps struct {
		Box  box `json:"box"`
		Cols []struct {
			Night string  `json:"night"`
			Value int     `json:"value"`
			Total string  `json:"total"`
			H     float64 `json:"h"`
		} `json:"cols"`
	} `json:"steps"`
	Ends struct {
		Box  box `json:"box"`
		Rows []struct {
			Row    string   `json:"row"`
			Total  string   `json:"total"`
			Nights []string `json:"nights"`
		} `json:"rows"`
	} `json:"ends"`
	Failures struct {
		Box box `json:"box"`
	} `json:"failures"`
	Background string   `json:"background"`
	Loaded     []string `json:"loaded"`
}

type box struct {
	W     float64 `json:"w"`
	H     float64 `json:"h"`
	Shown bool    `json:"shown"`
}

var measuredPre = regexp.MustCompile(`(?s)<pre id="measured">(.*?)</pre>`)

// measure renders the page with the probe and reads what it measured.
func measure(t *testing.T, bin, page string, extra ...string) measurement {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probed := filepath.Join(t.TempDir(), "probed.html")
	if err := os.WriteFile(probed, []byte(strings.Replace(string(data), "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return measured(t, render(t, bin, probed, extra...))
}

// measureAt renders the page with the probe in a viewport width px wide:
// headless Chromium's window is 500 px at the narrowest, so the page is
// loaded in a frame of that width, whose viewport it is (media queries
// and all), and the frame's measurements copied out.
func measureAt(t *testing.T, bin, page string, width int) measurement {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "probed.html"), []byte(strings.Replace(string(data), "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	frame := fmt.Sprintf(`<!doctype html><html><body style="margin:0"><iframe id="f" src="probed.html" style="width:%dpx;height:3000px;border:0"></iframe>
<script>document.getElementById("f").addEventListener("load", function () {
  var m = this.contentDocument && this.contentDocument.getElementById("measured");
  var p = document.createElement("pre"); p.id = "measured"; p.textContent = m ? m.textContent : "";
  document.body.appendChild(p);
});</script></body></html>`, width)
	if err := os.WriteFile(filepath.Join(dir, "frame.html"), []byte(frame), 0o644); err != nil {
		t.Fatal(err)
	}
	return measured(t, render(t, bin, filepath.Join(dir, "frame.html"), "--allow-file-access-from-files", "--window-size=800,3000"))
}

// measured reads what the probe measured from a rendered DOM.
func measured(t *testing.T, dom string) measurement {
	t.Helper()
	m := measuredPre.FindStringSubmatch(dom)
	if m == nil || m[1] == "" {
		t.Fatalf("the browser's DOM has no measurements: the page did not load or its script did not run:\n%.2000s", dom)
	}
	var out measurement
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &out); err != nil {
		t.Fatalf("measurements: %v\n%s", err, m[1])
	}
	return out
}

// TestThePageInABrowser is issue 18's acceptance for the page: the month's
// report, loaded in headless Chromium, shows what needs a person, the last
// night's timeline and both trend charts, drawn, with the ledger's
// numbers; it loads nothing; and it turns dark where the reader asks.
func TestThePageInABrowser(t *testing.T) {
	bin := chromium(t)
	m := theMonthLedger(t)
	ctx := context.Background()
	r, err := report.Build(ctx, m.l, m.now, report.Config{DB: "month.db"})
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(r.HTML(f), f.Close()); err != nil {
		t.Fatal(err)
	}
	got := measure(t, bin, page)

	// The ledger's own numbers, read apart from the report.
	nights, _ := m.l.Nights(ctx)
	last := nights[len(nights)-1]
	lastSteps, _ := m.l.Steps(ctx, last.ID)
	lastFailures, _ := m.l.Failures(ctx, last.ID)
	var outcomes []string
	for _, s := range lastSteps {
		outcomes = append(outcomes, string(wantOutcome(s, lastFailures)))
	}
	type night struct {
		name  string
		steps int
	}
	var fortnight []night
	var cut, out, full []string
	for _, n := range nights[len(nights)-14:] {
		steps, _ := m.l.Steps(ctx, n.ID)
		k := 0
		for _, s := range steps {
			if s.Role == ledger.Builder && s.State != ledger.Interrupted && s.State != ledger.Running {
				k++
			}
		}
		fortnight = append(fortnight, night{n.Name, k})
		switch {
		case n.End == ledger.CutShort || n.End == ledger.SystemStopped || len(n.Stops) > 0:
			cut = append(cut, n.Name)
		case n.End == ledger.OutOfWork:
			out = append(out, n.Name)
		default:
			full = append(full, n.Name)
		}
	}

	t.Run("what needs a person is drawn first, the most urgent first, each item with its commands", func(t *testing.T) {
		if !got.Needs.Box.Shown || got.Needs.Count != fmt.Sprint(r.Needs.Count()) {
			t.Errorf("needs: %+v, count %q; want it shown, counting %d", got.Needs.Box, got.Needs.Count, r.Needs.Count())
		}
		if len(got.Needs.Items) != len(r.Needs.Items) {
			t.Fatalf("%d items drawn, the report has %d", len(got.Needs.Items), len(r.Needs.Items))
		}
		for i, it := range r.Needs.Items {
			d := got.Needs.Items[i]
			if d.Kind != it.Kind || !slices.Equal(d.Cmds, it.Commands) {
				t.Errorf("item %d drawn as %s with %q; the report's is %s with %q", i, d.Kind, d.Cmds, it.Kind, it.Commands)
			}
		}
		for _, want := range []string{"night " + last.Name + " stopped", "ANTHROPIC_API_KEY", `"an atlas" failed on every builder model (b1, b2)`,
			"For the record", fmt.Sprintf("the whole title (%d characters)", len([]rune(glossary)))} {
			if !strings.Contains(got.Needs.Text, want) {
				t.Errorf("the section lacks %q:\n%s", want, got.Needs.Text)
			}
		}
		if strings.Contains(got.Needs.Text, glossary[:1000]) {
			t.Errorf("the section shows the glossary's whole title unasked")
		}
	})

	t.Run("on a 400 px screen the items stay short, the charts keep their size and scroll in their boxes, the page does not", func(t *testing.T) {
		narrow := measureAt(t, bin, page, 400)
		if narrow.Page.Inner != 400 {
			t.Fatalf("the page's viewport is %.0f px wide, want 400", narrow.Page.Inner)
		}
		for i, it := range narrow.Needs.Items {
			// A 5,000-character title made one item 1,080 px tall; a
			// clipped one is a line, and each item a few.
			if it.W > 400 || it.H > 480 || it.H <= 0 {
				t.Errorf("item %d (%s) is %.0fx%.0f px", i, it.Kind, it.W, it.H)
			}
		}
		if narrow.Page.Scroll > narrow.Page.Inner+1 {
			t.Errorf("the page is %.0f px wide on a %.0f px screen: it scrolls sideways, not only its charts", narrow.Page.Scroll, narrow.Page.Inner)
		}
		if len(narrow.Charts) < 6 {
			t.Fatalf("%d charts drawn", len(narrow.Charts))
		}
		for _, c := range narrow.Charts {
			// Drawn at their own size, not shrunk to the screen (36–38 %).
			if c.W < c.Attr-1 || c.Scrolls != "auto" || c.Client > 400 || (c.Attr > c.Client+1 && c.Scroll < c.Attr-1) {
				t.Errorf("chart %s %s: drawn %.0f px of its %.0f, in a box %.0f px wide that scrolls to %.0f (overflow %s)", c.Figure, c.Night, c.W, c.Attr, c.Client, c.Scroll, c.Scrolls)
			}
		}
		if narrow.Smallest < 10 {
			t.Errorf("the smallest chart text is %.1f px tall", narrow.Smallest)
		}
	})

	t.Run("the timeline draws every step of the last night, each a mark with its outcome, and the night's end", func(t *testing.T) {
		if !got.Timeline.Box.Shown {
			t.Fatalf("the timeline is not drawn: %+v", got.Timeline.Box)
		}
		var drawn []string
		for _, mk := range got.Timeline.Marks {
			if mk.W <= 0 || mk.H <= 0 || mk.Title == "" {
				t.Errorf("a %s mark is %gx%g with title %q", mk.Outcome, mk.W, mk.H, mk.Title)
			}
			drawn = append(drawn, mk.Outcome)
		}
		sort.Strings(drawn)
		sort.Strings(outcomes)
		if diff := cmp.Diff(outcomes, drawn); diff != "" {
			t.Errorf("marks drawn vs the ledger's steps (-ledger +drawn):\n%s", diff)
		}
		if want := "· " + string(last.End); !strings.HasSuffix(got.Timeline.End, want) {
			t.Errorf("the end's label %q; want it to end %q", got.Timeline.End, want)
		}
	})

	t.Run("builder steps per night: a column per night with the ledger's count, bars as tall as their counts", func(t *testing.T) {
		if !got.Steps.Box.Shown || len(got.Steps.Cols) != len(fortnight) {
			t.Fatalf("the chart: %+v with %d columns; want %d", got.Steps.Box, len(got.Steps.Cols), len(fortnight))
		}
		perStep := 0.0
		for i, c := range got.Steps.Cols {
			w := fortnight[i]
			if c.Night != w.name || c.Value != w.steps || c.Total != fmt.Sprint(w.steps) {
				t.Errorf("column %d: %s %d (written %q); the ledger: %s %d", i, c.Night, c.Value, c.Total, w.name, w.steps)
			}
			if w.steps == 0 {
				continue
			}
			if perStep == 0 {
				perStep = c.H / float64(w.steps)
			}
			if diff := c.H - perStep*float64(w.steps); diff > 1 || diff < -1 || c.H <= 0 {
				t.Errorf("column %s is %.1fpx tall for %d steps; %.1fpx a step elsewhere", c.Night, c.H, w.steps, perStep)
			}
		}
	})

	t.Run("the last night's timeline: a gap between consecutive steps, the axis fitted to the night, the window marked, every step listed", func(t *testing.T) {
		touching := 0
		for _, row := range got.Lanes {
			byLane := map[int][]float64{}
			for _, mk := range row.Marks {
				if prev := byLane[mk.Lane]; len(prev) > 0 {
					end := prev[len(prev)-1]
					if mk.X < end+1 {
						t.Errorf("row %s: a mark at %.1f starts before the one before it in its lane ends (%.1f): they read as one", row.Worker, mk.X, end)
					}
					if mk.X-end < 4 {
						touching++
					}
				}
				byLane[mk.Lane] = append(byLane[mk.Lane], mk.X+mk.W)
			}
		}
		if touching == 0 {
			t.Errorf("no consecutive steps on the last night's timeline: the gap is not checked")
		}
		// The night stopped at 02:54: the axis ends there, not at 06:00.
		if len(got.Hours) == 0 || slices.Contains(got.Hours, "06:00") || got.Hours[0] != "22:00" {
			t.Errorf("the axis' labels %v; want them from 22:00 to the night's end", got.Hours)
		}
		if !strings.Contains(got.Note, "window 22:00–06:00") || !strings.Contains(got.Note, "the axis stops at 02:54") {
			t.Errorf("the window's note %q", got.Note)
		}
		if got.StepList != len(outcomes) {
			t.Errorf("the list of steps has %d rows for %d steps", got.StepList, len(outcomes))
		}
	})

	t.Run("the spans are drawn: a worker sitting out, the tasks waiting for a person, a night idle for a person", func(t *testing.T) {
		seen := map[string]bool{}
		for _, sp := range got.Spans {
			if sp.Kind == "" {
				continue // the legend's
			}
			if sp.W <= 0 || sp.H <= 0 || sp.Title == "" {
				t.Errorf("a %s span of %s is %.1fx%.1f with title %q", sp.Kind, sp.Night, sp.W, sp.H, sp.Title)
			}
			seen[sp.Kind+" "+sp.Night] = true
		}
		for _, want := range []string{report.SittingOut + " 2025-10-25", report.WaitingForAPerson + " 2025-10-30", report.IdleWaiting + " 2025-10-27"} {
			if !seen[want] {
				t.Errorf("no %s span drawn; drawn: %v", want, seen)
			}
		}
	})

	t.Run("cost is charted, a night's unknown cost with its known part; the failures by hand have their row", func(t *testing.T) {
		if len(got.Cost) != len(r.Trend) {
			t.Fatalf("%d cost columns for %d nights", len(got.Cost), len(r.Trend))
		}
		for i, c := range got.Cost {
			p := r.Trend[i]
			if c.Night != p.Night || c.USD != strconv.FormatFloat(p.KnownUSD, 'f', 6, 64) {
				t.Errorf("cost column %d: %s $%s; the report's %s $%f", i, c.Night, c.USD, p.Night, p.KnownUSD)
			}
			if c.Night == "2025-10-26" && (c.Total != "≥0.35¢?" || !strings.Contains(c.Title, "cost ≥$0.0035?")) {
				t.Errorf("the 26th's cost reads %q (%q); want ≥0.35¢? and, in its title, ≥$0.0035?", c.Total, c.Title)
			}
		}
		if got.ByHand != "1" {
			t.Errorf("the failures chart's by-hand row totals %q; want 1", got.ByHand)
		}
	})

	t.Run("how nights ended: the nights cut short and the nights out of work on rows of their own, as the ledger has them", func(t *testing.T) {
		if !got.Ends.Box.Shown || !got.Failures.Box.Shown {
			t.Fatalf("the ends chart %+v, the failures chart %+v", got.Ends.Box, got.Failures.Box)
		}
		// The 27th sat idle for a person until its window closed: a row
		// of its own, not "to the end".
		full = slices.DeleteFunc(full, func(n string) bool { return n == "2025-10-27" })
		want := map[string][]string{"cut short": cut, "out of work": out, "waiting for a person": {"2025-10-27"}, "to the end": full}
		for _, row := range got.Ends.Rows {
			if !slices.Equal(row.Nights, want[row.Row]) || row.Total != fmt.Sprint(len(want[row.Row])) {
				t.Errorf("row %q marks %v (total %s); the ledger %v", row.Row, row.Nights, row.Total, want[row.Row])
			}
			delete(want, row.Row)
		}
		if len(want) > 0 {
			t.Errorf("rows missing: %v", want)
		}
	})

	t.Run("it loads nothing from anywhere", func(t *testing.T) {
		if len(got.Loaded) > 0 {
			t.Errorf("the page loaded %v", got.Loaded)
		}
	})

	t.Run("it turns dark where the reader prefers it", func(t *testing.T) {
		dark := measure(t, bin, page, "--force-dark-mode", "--blink-settings=preferredColorScheme=0")
		if got.Background != "rgb(255, 255, 255)" || dark.Background != "rgb(19, 19, 22)" {
			t.Errorf("background light %q, dark %q", got.Background, dark.Background)
		}
	})
}
