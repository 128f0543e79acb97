package reliability

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/batch"
	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/taskfile"
)

// Report is what Run measured.
type Report struct {
	// Runs is K.
	Runs int `json:"runs"`
	// Conditions are the conditions run, in order.
	Conditions []ConditionInfo `json:"conditions"`
	// Tasks are the tasks' figures, in the order given, each by
	// condition.
	Tasks []TaskFigures `json:"tasks"`
	// Overall sums the tasks' figures, by condition.
	Overall map[string]*Figures `json:"overall"`
	// WorkDir holds each condition's workspaces and logs.
	WorkDir string `json:"work_dir"`
}

// ConditionInfo says how a condition ran.
type ConditionInfo struct {
	Name string `json:"name"`
	// Faults is the schedule in words; "" for none.
	Faults string `json:"faults,omitempty"`
	// Requests is how many requests went through the fault proxy, and
	// Injected how many faults it injected, by kind.
	Requests int            `json:"requests,omitempty"`
	Injected map[string]int `json:"injected,omitempty"`
}

// TaskFigures are one task's figures, by condition.
type TaskFigures struct {
	Name string              `json:"name"`
	By   map[string]*Figures `json:"conditions"`
}

// Figures count the runs of a task, or of every task, under one
// condition.
type Figures struct {
	// Tasks is how many tasks the figures are of: 1 for a task's.
	Tasks int `json:"tasks"`
	// Runs counts the runs; Done, Unverified and Failed sort them by
	// how they ended (failed: any outcome but done and unverified).
	Runs       int `json:"runs"`
	Done       int `json:"done"`
	Unverified int `json:"unverified"`
	Failed     int `json:"failed"`
	// PassRate is Done / Runs.
	PassRate float64 `json:"pass_rate"`
	// PassK counts the tasks whose every run was done (for a task: 1 or
	// 0), and PassKRate is PassK / Tasks.
	PassK     int     `json:"pass_k"`
	PassKRate float64 `json:"pass_k_rate"`
	// Retries counts the retried calls of every run.
	Retries int `json:"retries"`
	// InputTokens and OutputTokens sum every run's tokens, the judge's
	// included; Cost prices them (unknown when a run's could not be
	// priced: null in JSON).
	InputTokens  int64       `json:"input_tokens"`
	OutputTokens int64       `json:"output_tokens"`
	Cost         models.Cost `json:"cost_usd"`
	// Outcomes counts the runs by outcome.
	Outcomes map[string]int `json:"outcomes"`
}

func newFigures() *Figures { return &Figures{Outcomes: map[string]int{}, Cost: models.USD(0)} }

// count adds one run.
func (f *Figures) count(r *agent.Result, retries int) {
	f.Runs++
	switch classOf(r.Outcome) {
	case "done":
		f.Done++
	case "unverified":
		f.Unverified++
	default:
		f.Failed++
	}
	f.Retries += retries
	f.InputTokens += r.Usage.InputTokens
	f.OutputTokens += r.Usage.OutputTokens
	f.Cost = f.Cost.Add(r.Cost)
	f.Outcomes[string(r.Outcome)]++
}

// sum adds g's figures to f's.
func (f *Figures) sum(g *Figures) {
	f.Tasks += g.Tasks
	f.Runs += g.Runs
	f.Done += g.Done
	f.Unverified += g.Unverified
	f.Failed += g.Failed
	f.PassK += g.PassK
	f.Retries += g.Retries
	f.InputTokens += g.InputTokens
	f.OutputTokens += g.OutputTokens
	f.Cost = f.Cost.Add(g.Cost)
	for k, v := range g.Outcomes {
		f.Outcomes[k] += v
	}
}

func (f *Figures) rates() {
	if f.Runs > 0 {
		f.PassRate = float64(f.Done) / float64(f.Runs)
	}
	if f.Tasks > 0 {
		f.PassKRate = float64(f.PassK) / float64(f.Tasks)
	}
}

func newReport(specs []*taskfile.Spec, runs int, work string) *Report {
	rep := &Report{Runs: runs, WorkDir: work, Overall: map[string]*Figures{}}
	for i, s := range specs {
		name := s.Name
		if name == "" {
			name = fmt.Sprintf("task %d", i+1)
		}
		rep.Tasks = append(rep.Tasks, TaskFigures{Name: name, By: map[string]*Figures{}})
	}
	return rep
}

// add sorts a condition's batch back into its tasks, K runs each.
func (rep *Report) add(info ConditionInfo, sum *batch.Summary, runs int, retries func(string) int) {
	rep.Conditions = append(rep.Conditions, info)
	overall := newFigures()
	for i := range rep.Tasks {
		f := newFigures()
		f.Tasks = 1
		for _, tr := range sum.Tasks[i*runs : (i+1)*runs] {
			n := 0
			if retries != nil {
				n = retries(tr.Dir)
			}
			f.count(tr.Result, n)
		}
		if f.Done == f.Runs {
			f.PassK = 1
		}
		f.rates()
		rep.Tasks[i].By[info.Name] = f
		overall.sum(f)
	}
	overall.rates()
	rep.Overall[info.Name] = overall
}

// WriteJSON writes the report as one JSON document.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText writes the report for a person: a row per task and
// condition, then the overall figures, the conditions side by side.
func (rep *Report) WriteText(w io.Writer) error {
	noun := "tasks"
	if len(rep.Tasks) == 1 {
		noun = "task"
	}
	fmt.Fprintf(w, "reliability · %d %s × %d runs · pass^%d: every one of the %d runs done\n", len(rep.Tasks), noun, rep.Runs, rep.Runs, rep.Runs)
	for _, c := range rep.Conditions {
		fmt.Fprintf(w, "  %s: %s\n", c.Name, c.describe())
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "TASK\tCONDITION\tDONE\tUNVERIFIED\tFAILED\tPASS^%d\tRETRIES\tTOKENS IN/OUT\tCOST\tOUTCOMES\n", rep.Runs)
	row := func(name, cond string, f *Figures, passK string) {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\t%d\t%s\t%d\t%d/%d\t%s\t%s\n", name, cond, f.Done, f.Runs, f.Unverified, f.Failed,
			passK, f.Retries, f.InputTokens, f.OutputTokens, f.Cost, outcomes(f.Outcomes))
	}
	for _, t := range rep.Tasks {
		name := t.Name
		for _, c := range rep.Conditions {
			f := t.By[c.Name]
			passK := "no"
			if f.PassK == 1 {
				passK = "yes"
			}
			row(name, c.Name, f, passK)
			name = ""
		}
	}
	name := "overall"
	for _, c := range rep.Conditions {
		f := rep.Overall[c.Name]
		row(name, c.Name, f, fmt.Sprintf("%d/%d", f.PassK, f.Tasks))
		name = ""
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, c := range rep.Conditions {
		f := rep.Overall[c.Name]
		fmt.Fprintf(w, "%s: %.0f%% of the runs done, pass^%d %.0f%% of the tasks\n", c.Name, 100*f.PassRate, rep.Runs, 100*f.PassKRate)
	}
	_, err := fmt.Fprintf(w, "workspaces and logs: %s\n", rep.WorkDir)
	return err
}

// describe says how a condition ran, in words.
func (c ConditionInfo) describe() string {
	if c.Faults == "" {
		return "no faults"
	}
	s := c.Faults
	if c.Requests > 0 {
		total := 0
		for _, n := range c.Injected {
			total += n
		}
		s += fmt.Sprintf(" · %d of %d requests faulted", total, c.Requests)
		if total > 0 {
			s += " (" + outcomes(c.Injected) + ")"
		}
	}
	return s
}

// outcomes lists counts, most first, then by name: "done 4 · api-failure 1".
func outcomes(m map[string]int) string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, " · ")
}
