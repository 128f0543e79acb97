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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/report"
)

// chromium finds a headless Chromium: $NIGHTSHIFT_CHROMIUM, or Debian's
// chromium (what .ci/run installs), or Chrome.
func chromium(t *testing.T) string {
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
func render(t *testing.T, bin, page string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir(), "--window-size=1100,3000", "--dump-dom"}, extra...)
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
  var needs = document.getElementById("needs");
  var out = {
    needs: {box: box(needs), count: needs && needs.dataset.count, text: needs && needs.innerText},
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

type measured struct {
	Needs struct {
		Box   box    `json:"box"`
		Count string `json:"count"`
		Text  string `json:"text"`
	} `json:"needs"`
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
func measure(t *testing.T, bin, page string, extra ...string) measured {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probed := filepath.Join(t.TempDir(), "probed.html")
	if err := os.WriteFile(probed, []byte(strings.Replace(string(data), "</body>", probe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := render(t, bin, probed, extra...)
	m := measuredPre.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the browser's DOM has no measurements: the page did not load or its script did not run:\n%.2000s", dom)
	}
	var out measured
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

	t.Run("what needs a person is drawn first, with its count and the commands that answer the parked action", func(t *testing.T) {
		if !got.Needs.Box.Shown || got.Needs.Count != fmt.Sprint(r.Needs.Count()) {
			t.Errorf("needs: %+v, count %q; want it shown, counting %d", got.Needs.Box, got.Needs.Count, r.Needs.Count())
		}
		tasks, _ := m.l.Tasks(ctx)
		for _, task := range tasks {
			if task.Title == "a map of the old town" {
				for _, want := range []string{fmt.Sprintf("nightshift task approve %d --db month.db", task.ID), fmt.Sprintf("nightshift task deny %d --db month.db", task.ID)} {
					if !strings.Contains(got.Needs.Text, want) {
						t.Errorf("the section lacks %q:\n%s", want, got.Needs.Text)
					}
				}
			}
		}
		for _, want := range []string{"night " + last.Name + " stopped", `“an atlas” failed on every builder model (b1, b2)`, `“a glossary”`, "night 2025-10-19: cut-short"} {
			if !strings.Contains(got.Needs.Text, want) {
				t.Errorf("the section lacks %q:\n%s", want, got.Needs.Text)
			}
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

	t.Run("how nights ended: the nights cut short and the nights out of work on rows of their own, as the ledger has them", func(t *testing.T) {
		if !got.Ends.Box.Shown || !got.Failures.Box.Shown {
			t.Fatalf("the ends chart %+v, the failures chart %+v", got.Ends.Box, got.Failures.Box)
		}
		want := map[string][]string{"cut short": cut, "out of work": out, "to the end": full}
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
