package night_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

// TestTheSetupNamesEachModelsKeyVariableAndWhereTheNightRan: when a
// provider refuses a key, the morning report names the worker's model and
// the variable its key is read from (never the key), and its commands
// name the pipeline file; `nightshift task show` finds an attempt's run
// record under the work folder and the state directory. The night keeps
// all of them, as absolute paths, in its setup (issue 30).
func TestTheSetupNamesEachModelsKeyVariableAndWhereTheNightRan(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pipeline.yaml")
	if err := os.WriteFile(file, []byte(`
window: {start: "22:00", end: "06:00"}
work_dir: tasks
models:
  claude: {provider: anthropic, model: claude-sonnet-5-5, api_key_env: MAKER_KEY}
  gpt:    {provider: openai}
roles:
  builder: {models: [claude, gpt]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := night.LoadPipeline(file)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(context.Background(), filepath.Join(dir, "night.db"), ledger.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background()) //nolint:errcheck // test cleanup
	f := &fixture{t: t, l: l, p: p, dir: dir, clk: clock.NewFake(dusk)}
	f.add("a chart", 5)
	state := filepath.Join(dir, "state")
	sum, err := night.Run(context.Background(), night.Config{Pipeline: p, Ledger: l, Builder: f.builder(time.Minute, done), Clock: f.clk, StateBase: state})
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.NightSetup(context.Background(), sum.Night.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.Setup{Roles: map[ledger.Role]ledger.RoleSetup{ledger.Builder: {Models: []string{"claude", "gpt"}, Ceiling: 14}},
		WIP: 3, Models: map[string]ledger.ModelSetup{
			"claude": {Provider: "anthropic", Model: "claude-sonnet-5-5", KeyEnv: "MAKER_KEY"},
			"gpt":    {Provider: "openai", Model: got.Models["gpt"].Model, KeyEnv: "OPENAI_API_KEY"},
		}, Pipeline: file, WorkDir: filepath.Join(dir, "tasks"), StateBase: state, Charges: got.Charges}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("setup (-want +got):\n%s", diff)
	}
	if got.Models["gpt"].Model == "" {
		t.Errorf("the openai model without a model name names none; want the provider's default")
	}
}
