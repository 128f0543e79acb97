package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/internal/proxy"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// figures are the figures of the JSON report a test reads.
type figures struct {
	Tasks      int            `json:"tasks"`
	Runs       int            `json:"runs"`
	Done       int            `json:"done"`
	Unverified int            `json:"unverified"`
	Failed     int            `json:"failed"`
	PassK      int            `json:"pass_k"`
	Retries    int            `json:"retries"`
	Outcomes   map[string]int `json:"outcomes"`
}

type reliabilityJSON struct {
	Runs       int `json:"runs"`
	Conditions []struct {
		Name     string         `json:"name"`
		Faults   string         `json:"faults"`
		Requests int            `json:"requests"`
		Injected map[string]int `json:"injected"`
	} `json:"conditions"`
	Tasks []struct {
		Name string             `json:"name"`
		By   map[string]figures `json:"conditions"`
	} `json:"tasks"`
	Overall map[string]figures `json:"overall"`
	WorkDir string             `json:"work_dir"`
}

// simDone serves, as `sim serve` does, a model that answers every call
// "Done.".
func simDone(t *testing.T) string {
	t.Helper()
	sc, err := scripted.Parse([]byte("loop: true\nturns: [{text: Done.}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func reliabilityRun(t *testing.T, args ...string) (reliabilityJSON, result) {
	t.Helper()
	res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=sk-ant-made-up-for-eval-reliability"}, append([]string{"eval", "reliability", "--json"}, args...)...)
	var rep reliabilityJSON
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	return rep, res
}

// TestEvalReliabilityGivesTheFiguresTheScheduleImplies runs two tasks
// twice each against `sim serve`, clean and through a schedule that
// rate-limits request 1 and fails request 4 with a 500. One at a time,
// the runs make requests 1-5 in order: steady's first run retries its
// 429 and is done, its second is done; fragile (retries: 0) fails its
// first run on the 500 and is done on its second. The report says
// exactly that.
func TestEvalReliabilityGivesTheFiguresTheScheduleImplies(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tasks.yaml": `
- name: steady
  task: Say you are done.
  no_judge: true
- name: fragile
  task: Say you are done, once.
  no_judge: true
  retries: 0
`,
		"faults.yaml": "at:\n  1: {status: 429, headers: {retry-after-ms: \"1\"}}\n  4: 500\n",
	})
	rep, res := reliabilityRun(t, "--provider", "anthropic", "--base-url", simDone(t), "--tasks", filepath.Join(dir, "tasks.yaml"),
		"--runs", "2", "--parallel", "1", "--faults", filepath.Join(dir, "faults.yaml"), "--work", filepath.Join(dir, "work"))
	if rep.Runs != 2 || len(rep.Conditions) != 2 || rep.Conditions[0].Name != "clean" || rep.Conditions[1].Name != "faults" {
		t.Fatalf("report %+v", rep)
	}
	faults := rep.Conditions[1]
	if faults.Requests != 5 || !cmp.Equal(faults.Injected, map[string]int{"429": 1, "500": 1}) || faults.Faults != "#1=429 #4=500" {
		t.Errorf("the faults condition: %+v, want 5 requests, a 429 and a 500 injected", faults)
	}
	want := map[string]map[string]figures{
		"steady": {
			"clean":  {Tasks: 1, Runs: 2, Done: 2, PassK: 1, Outcomes: map[string]int{"done": 2}},
			"faults": {Tasks: 1, Runs: 2, Done: 2, PassK: 1, Retries: 1, Outcomes: map[string]int{"done": 2}},
		},
		"fragile": {
			"clean":  {Tasks: 1, Runs: 2, Done: 2, PassK: 1, Outcomes: map[string]int{"done": 2}},
			"faults": {Tasks: 1, Runs: 2, Done: 1, Failed: 1, PassK: 0, Outcomes: map[string]int{"done": 1, "api-failure": 1}},
		},
	}
	for _, task := range rep.Tasks {
		if diff := cmp.Diff(want[task.Name], task.By); diff != "" {
			t.Errorf("task %s (-want +got):\n%s", task.Name, diff)
		}
	}
	wantOverall := map[string]figures{
		"clean":  {Tasks: 2, Runs: 4, Done: 4, PassK: 2, Outcomes: map[string]int{"done": 4}},
		"faults": {Tasks: 2, Runs: 4, Done: 3, Failed: 1, PassK: 1, Retries: 1, Outcomes: map[string]int{"done": 3, "api-failure": 1}},
	}
	if diff := cmp.Diff(wantOverall, rep.Overall); diff != "" {
		t.Errorf("overall (-want +got):\n%s", diff)
	}
	log, err := os.ReadFile(filepath.Join(dir, "work", "proxy.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "\n"); n != 5 || !strings.Contains(string(log), "proxy: #4 POST /v1/messages stream=false -> fault 500") {
		t.Errorf("the proxy's log has %d lines:\n%s", n, log)
	}
	if strings.Contains(res.stderr+string(log), "sk-ant-made-up-for-eval-reliability") {
		t.Error("the key is in the output")
	}
}

// TestEvalReliabilityRatesGiveTheirDraws runs one task (no retries) eight
// times through --fault 500=0.5 --seed 11: run n makes request n, so the
// runs done are the requests the schedule's draw leaves alone.
func TestEvalReliabilityRatesGiveTheirDraws(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tasks.yaml": "- name: once\n  task: Say you are done.\n  no_judge: true\n  retries: 0\n"})
	sched, err := proxy.ParseSchedule([]byte("seed: 11\nrate: {500: 0.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	faulted := 0
	for n := 1; n <= 8; n++ {
		if sched.Fault(n) != nil {
			faulted++
		}
	}
	if faulted == 0 || faulted == 8 {
		t.Fatalf("seed 11 faults %d of 8: pick a seed that shows both", faulted)
	}
	rep, _ := reliabilityRun(t, "--provider", "anthropic", "--base-url", simDone(t), "--tasks", filepath.Join(dir, "tasks.yaml"),
		"--runs", "8", "--parallel", "1", "--fault", "500=0.5", "--seed", "11")
	got := rep.Overall["faults"]
	want := figures{Tasks: 1, Runs: 8, Done: 8 - faulted, Failed: faulted, Outcomes: map[string]int{"done": 8 - faulted, "api-failure": faulted}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overall under faults (-want +got):\n%s", diff)
	}
	if rep.Conditions[1].Injected["500"] != faulted || rep.Conditions[1].Faults != "500=0.5 seed=11" {
		t.Errorf("the faults condition: %+v", rep.Conditions[1])
	}
}

func TestEvalReliabilityText(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tasks.yaml": "- name: hello\n  task: Say you are done.\n  no_judge: true\n"})
	res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=sk-ant-made-up"}, "eval", "reliability", "--provider", "anthropic", "--base-url", simDone(t),
		"--tasks", filepath.Join(dir, "tasks.yaml"), "--runs", "2", "--fault", "empty=0")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, want := range []string{"reliability · 1 task × 2 runs · pass^2", "TASK     CONDITION  DONE", "hello    clean      2/2", "         faults     2/2", "overall  clean      2/2", "faults: no faults · 0 of 2 requests faulted"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, res.stdout)
		}
	}
}

func TestEvalReliabilityUsageErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tasks.yaml": "- task: x\n", "s.yaml": "turns: [{text: hi}]\n", "work/x": "x"})
	tasks := filepath.Join(dir, "tasks.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "reliability"}, "needs --tasks FILE"},
		{[]string{"eval", "reliability", "--tasks", tasks, "--runs", "0"}, "--runs must be 1 or more"},
		{[]string{"eval", "reliability", "--tasks", filepath.Join(dir, "none.yaml")}, "no such file or folder"},
		{[]string{"eval", "reliability", "--tasks", tasks, "--work", filepath.Join(dir, "work")}, "is not empty"},
		{[]string{"eval", "reliability", "--tasks", tasks, "--fault", "cut"}, "want KIND=RATE"},
		{[]string{"eval", "reliability", "--tasks", tasks, "--provider", "scripted", "--scenario", filepath.Join(dir, "s.yaml"), "--fault", "cut=0.5"}, "runs in process"},
		{[]string{"eval", "reliability", "--tasks", tasks, "extra"}, "takes no arguments"},
	} {
		res := runCLI(t, c.args...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, res.code, res.stderr, c.want)
		}
	}
}
