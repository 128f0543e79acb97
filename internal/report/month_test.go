package report_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/night"
)

// monthPipeline is seed 003's pipeline, small: two ideas a night, a judge
// with a ceiling of 4, a builder with two models (real providers' names,
// so that the report names a refused key's variable; the month's builder
// is a fake one) and a ceiling of 6, api-down charged to the night (so
// that one night is cut short by a night-scope failure).
const monthPipeline = `
window: {start: "22:00", end: "06:00"}
wip: 8
park: {deadline: 12h, past_deadline: fail}
models:
  idea:  {provider: scripted, scenario: unused.yaml}
  judge: {provider: scripted, scenario: unused.yaml}
  b1:    {provider: anthropic, model: claude-sonnet-5-5}
  b2:    {provider: openai, model: gpt-5.5, api_key_env: B2_KEY}
roles:
  proposer: {models: [idea], ceiling: 2}
  judge:    {models: [judge], ceiling: 4}
  builder:  {models: [b1, b2], ceiling: 6}
rules:
  - {failure: api-down, scope: night, reason: "the provider stayed down: nothing else will work tonight"}
`

// firstNight is when the month's first window opens.
var firstNight = time.Date(2025, 10, 1, 22, 0, 0, 0, time.UTC)

// month is a ledger of 30 nights on the simulated clock, with every kind
// of ending, built once for the tests that read it.
type month struct {
	l     *ledger.Ledger
	path  string
	clk   *clock.Fake
	ends  map[int]ledger.EndKind // by day
	night map[int]ledger.Night   // by day, as it ended
	// now is when the morning report is made: a minute after the last
	// night's window closed.
	now time.Time
	// byHand is the failure a person recorded between nights 25 and 26;
	// drop the task given up after night 30.
	byHand ledger.Failure
	drop   ledger.Drop
	// pipeline is the pipeline file the nights ran.
	pipeline string
}

var (
	monthOnce sync.Once
	theMonth  *month
	monthErr  error
	monthDir  string
)

// The month's script, by day: what a person adds before the night, and
// how the builder's attempts end.
//
//	2–5    an atlas fails with b1 twice (escalated to b2), then b2 twice:
//	       failed on every model, and it stays in the backlog
//	most evenings a person adds two tasks or four (more than the
//	builder's ceiling takes), some none: nights end out of work or at
//	the ceilings
//	7–9    the seed's booklet: an empty answer on b1 twice, done on b2
//	12     a star finder's first attempt is interrupted, then done
//	18     the provider stays down (api-down, charged to the night): cut short
//	19     quota refusals on both builder models: every worker out, cut short
//	20     a fetched book parks; nobody answers; the next night expires it
//	22     a 401 stops the night; a person fixes the key, it is resumed
//	24     each attempt takes two hours: the window closes
//	25     two tasks fail on b1: its second failure sends it out
//	       (in the morning a person records a failure of the quiz by hand)
//	26     the first attempt costs $0.0035, the rest have no price
//	27     a harbour chart parks; nothing else is takeable, so the night
//	       sits idle, waiting for a person, until its window closes
//	27–30  the judge's replies score nothing: it loses every call
//	28     the proposer's first answer is empty (a call-scope failure)
//	29     a glossary (its title 5,000 characters long) ends unverified
//	30     a map and a list of night trains park, a clock's attempt is
//	       interrupted, and a 401 stops the night, not resumed; after the
//	       night a person approves the night trains and gives up a copy
//	       of the map
func monthTasks(day int) []string {
	switch day {
	case 3, 6, 9, 13, 16, 18, 19, 21, 22, 26:
		return nil
	case 27:
		return []string{"a harbour chart"}
	case 2:
		return []string{"an atlas", "task 2a", "task 2b", "task 2c"}
	case 7:
		return []string{"booklet from a public-domain text", "task 7a", "task 7b", "task 7c"}
	case 12:
		return []string{"a star finder", "task 12a", "task 12b", "task 12c"}
	case 20:
		return []string{"a fetched book", "task 20a"}
	case 25:
		return []string{"a quiz", "a riddle", "task 25a"}
	case 29:
		return []string{glossary, "task 29a", "task 29b", "task 29c"}
	case 30:
		return []string{"a map of the old town", "a list of night trains", "a clock", "a copy of the map"}
	case 1, 4, 5, 8, 10, 11, 14, 15, 17, 24:
		// A busy evening: more than the builder's ceiling can take.
		return []string{fmt.Sprintf("task %da", day), fmt.Sprintf("task %db", day), fmt.Sprintf("task %dc", day), fmt.Sprintf("task %dd", day)}
	}
	return []string{fmt.Sprintf("task %da", day), fmt.Sprintf("task %db", day)}
}

// glossary is the glossary's title: 5,000 characters, which the text
// and the page clip (and keep whole where a person asks for it).
var glossary = "a glossary" + strings.Repeat(" of sailing terms,", 277)

// monthScores puts the tasks that tell the story first.
var monthScores = map[string]float64{"an atlas": 10, "booklet from a public-domain text": 9.5, "a star finder": 9.5,
	"a fetched book": 9.5, "a quiz": 9.5, "a riddle": 9.4, glossary: 9.5, "a map of the old town": 9.5,
	"a list of night trains": 9.4, "a clock": 9.3, "a harbour chart": 9.5, "a copy of the map": 1}

func buildMonth() (*month, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "report-month-")
	if err != nil {
		return nil, err
	}
	monthDir = dir
	// Loaded from a file, as `nightshift night` loads it: the report's
	// commands name it.
	if err := os.WriteFile(filepath.Join(dir, "pipeline.yaml"), []byte(monthPipeline), 0o644); err != nil {
		return nil, err
	}
	p, err := night.LoadPipeline(filepath.Join(dir, "pipeline.yaml"))
	if err != nil {
		return nil, err
	}
	p.WorkDir = filepath.Join(dir, "work")
	m := &month{path: filepath.Join(dir, "month.db"), clk: clock.NewFake(firstNight), ends: map[int]ledger.EndKind{}, night: map[int]ledger.Night{},
		pipeline: filepath.Join(dir, "pipeline.yaml")}
	if m.l, err = ledger.Open(ctx, m.path, ledger.Config{Owner: "box1"}); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	day, builderSteps, interrupted, authFixed := 0, 0, map[string]bool{}, false
	proposerCalls := 0
	quota := &llm.Error{Provider: "scripted", Class: llm.Quota, Status: 429, Type: "insufficient_quota", Message: "You exceeded your current quota"}
	auth := &llm.Error{Provider: "scripted", Class: llm.Auth, Status: 401, Message: "invalid x-api-key"}
	down := &llm.Error{Provider: "scripted", Class: llm.Overloaded, Status: 529, Message: "Overloaded"}
	// attempt is what the builder's attempt comes to; mu is held.
	attempt := func(a night.Assignment) night.Attempt {
		builderSteps++
		step := 40 * time.Minute
		if day == 24 {
			step = 2 * time.Hour
		}
		m.clk.Advance(step)
		title := a.Task.Title
		ok := night.Attempt{Outcome: agent.Done, Answer: "Made " + title + ".", Tokens: 1000 + int64(day)*10, Calls: 3}
		switch {
		case day == 18 && builderSteps == 2:
			return night.Attempt{Outcome: agent.APIFailure, Reason: "529 Overloaded, retries exhausted", Err: down, Tokens: 200, Calls: 4}
		case day == 19:
			return night.Attempt{Outcome: agent.APIFailure, Reason: "429 insufficient_quota", Err: quota, Tokens: 100, Calls: 1}
		case day == 22 && !authFixed:
			return night.Attempt{Outcome: agent.APIFailure, Reason: "401 invalid x-api-key", Err: auth, Calls: 1}
		case day == 30 && builderSteps == 7:
			return night.Attempt{Outcome: agent.APIFailure, Reason: "401 invalid x-api-key", Err: auth, Calls: 1}
		case title == "an atlas" && day >= 2:
			return night.Attempt{Outcome: agent.StepLimit, Reason: "the step brake tripped after 20 steps", Tokens: 4000, Calls: 20}
		case title == "booklet from a public-domain text" && a.Worker == "b1":
			return night.Attempt{Outcome: agent.Unverified, Checks: []string{"not-empty"}, Reason: "run_command was refused by policy; then no answer", Tokens: 500, Calls: 4}
		case (title == "a star finder" || title == "a clock") && !interrupted[title]:
			interrupted[title] = true
			return night.Attempt{Outcome: agent.Interrupted, Reason: "the process was told to stop", Tokens: 300, Calls: 2}
		case title == "a fetched book" || title == "a map of the old town" || title == "a list of night trains" || title == "a harbour chart":
			if len(a.Approved) > 0 {
				return ok
			}
			return night.Attempt{Outcome: agent.Parked, Park: &night.ParkRequest{Action: `run_command {"command":"curl -O https://example.org/` + strings.ReplaceAll(title, " ", "-") + `"}`,
				Reason: "danger-class tool"}, Tokens: 600, Calls: 2}
		case (title == "a quiz" || title == "a riddle") && day == 25:
			return night.Attempt{Outcome: agent.Unverified, Answer: "Half of " + title + ".", Checks: []string{"judge"}, Reason: "the judge: only half done", Tokens: 900, Calls: 6}
		case title == glossary:
			return night.Attempt{Outcome: agent.Unverified, Answer: "A glossary of 12 sailing terms.", Checks: []string{"min-chars"},
				Reason: "min-chars: 1200 of 4000 characters", Tokens: 1500, Calls: 8}
		}
		return ok
	}
	// Every attempt is priced at $3 per million tokens, but on the 26th,
	// when the model table had no price but for the first attempt's
	// $0.0035: that night's cost is unknown, at least $0.0035.
	builder := night.BuilderFunc(func(_ context.Context, a night.Assignment) night.Attempt {
		mu.Lock()
		defer mu.Unlock()
		at := attempt(a)
		switch {
		case day != 26:
			at.Cost = models.USD(float64(at.Tokens) * 3e-6)
		case builderSteps == 1:
			at.Cost = models.USD(0.0035)
		}
		return at
	})
	line := regexp.MustCompile(`(?m)^(\d+): `)
	models := map[string]llm.Model{
		"idea": llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
			mu.Lock()
			defer mu.Unlock()
			m.clk.Advance(3 * time.Minute)
			proposerCalls++
			text := fmt.Sprintf("- idea %d", proposerCalls)
			if day == 28 && proposerCalls%2 == 1 {
				text = ""
			}
			return &llm.Response{Content: []llm.Block{llm.Text(text)}, StopReason: llm.EndTurn, Usage: llm.Usage{InputTokens: 40, OutputTokens: 10}}, nil
		}),
		"judge": llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			mu.Lock()
			lost := day >= 27
			mu.Unlock()
			m.clk.Advance(2 * time.Minute)
			var b strings.Builder
			for _, x := range line.FindAllStringSubmatch(req.Messages[0].Text(), -1) {
				fmt.Fprintf(&b, "%s: 5\n", x[1])
			}
			if lost {
				// It answers, in words, and scores nothing.
				b.Reset()
				b.WriteString("These all look promising to me.")
			}
			return &llm.Response{Content: []llm.Block{llm.Text(b.String())}, StopReason: llm.EndTurn, Usage: llm.Usage{InputTokens: 60, OutputTokens: 8}}, nil
		}),
	}
	cfg := night.Config{Pipeline: p, Ledger: m.l, Builder: builder, Models: models, Clock: m.clk}
	for d := 1; d <= 30; d++ {
		mu.Lock()
		day, builderSteps, proposerCalls = d, 0, 0
		mu.Unlock()
		for _, title := range monthTasks(d) {
			s := monthScores[title]
			if s == 0 {
				s = 7
			}
			if _, err := m.l.AddTask(ctx, ledger.NewTask{Title: title, Score: &s}, m.clk.Now()); err != nil {
				return nil, err
			}
		}
		sum, err := night.Run(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("night %d: %w", d, err)
		}
		if d == 22 {
			// A person fixes the key and runs the night again in its
			// window: it is resumed.
			mu.Lock()
			authFixed = true
			mu.Unlock()
			m.clk.Advance(30 * time.Minute)
			if sum, err = night.Run(ctx, cfg); err != nil {
				return nil, fmt.Errorf("night %d resumed: %w", d, err)
			}
		}
		m.ends[d], m.night[d] = sum.Night.End, sum.Night
		if now := m.clk.Now(); now.Before(sum.Night.WindowEnd) {
			m.clk.Advance(sum.Night.WindowEnd.Sub(now))
		}
		if d == 25 {
			// In the morning, between nights, a person records that the
			// quiz was wrong from the start.
			m.clk.Advance(2 * time.Hour)
			tasks, err := m.l.Tasks(ctx)
			if err != nil {
				return nil, err
			}
			for _, t := range tasks {
				if t.Title == "a quiz" {
					if m.byHand, err = m.l.FailTask(ctx, t.ID, 0, "the quiz's answers were wrong from the start", m.clk.Now()); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	m.now = m.clk.Now().Add(time.Minute)
	// In the morning a person approves the night trains; the map still
	// waits.
	tasks, err := m.l.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tasks {
		switch t.Title {
		case "a list of night trains":
			if _, err := m.l.Decide(ctx, t.ID, ledger.Approved, m.now); err != nil {
				return nil, err
			}
		case "a copy of the map":
			if m.drop, err = m.l.DropTask(ctx, t.ID, 0, "the map is enough", m.now); err != nil {
				return nil, err
			}
		}
	}
	m.now = m.now.Add(time.Minute)
	return m, nil
}

// theMonthLedger returns the month, building it on first use.
func theMonthLedger(t *testing.T) *month {
	t.Helper()
	monthOnce.Do(func() { theMonth, monthErr = buildMonth() })
	if monthErr != nil {
		t.Fatal(monthErr)
	}
	return theMonth
}
