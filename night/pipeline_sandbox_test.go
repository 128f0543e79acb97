package night_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/ledger"
	"github.com/nightshift-dev/nightshift/night"
)

const pipelineHead = `window: {start: "22:00", end: "06:00"}
models: {b: {provider: scripted, scenario: b.yaml}}
`

func TestThePipelineSaysHowTheBuildersCommandsRun(t *testing.T) {
	p, err := night.ParsePipeline([]byte(pipelineHead + `roles: {builder: {models: [b], sandbox: bwrap, sandbox_net: true, env: [GOFLAGS], command_timeout: 5m}}`))
	if err != nil {
		t.Fatal(err)
	}
	b := p.Role(ledger.Builder)
	if b.Sandbox != "bwrap" || !b.SandboxNet || strings.Join(b.Env, ",") != "GOFLAGS" || time.Duration(b.CommandTimeout) != 5*time.Minute {
		t.Errorf("builder %+v", b)
	}
	for _, bad := range []string{
		`roles: {builder: {models: [b], sandbox: docker}}`,
		`roles: {builder: {models: [b]}, judge: {models: [b], sandbox: none}}`,
		`roles: {builder: {models: [b]}, proposer: {models: [b], env: [X]}}`,
	} {
		if _, err := night.ParsePipeline([]byte(pipelineHead + bad)); !errors.Is(err, night.ErrBadPipeline) {
			t.Errorf("%s: %v, want ErrBadPipeline", bad, err)
		}
	}
}

// Regression (issue 11): a pipeline's `approve: [run_comand=deny]` was
// accepted, and run_command ran under the class rule.
func TestAPipelineRuleNamingNoToolIsAnError(t *testing.T) {
	p, err := night.ParsePipeline([]byte(pipelineHead + `roles: {builder: {models: [b], approve: [danger=allow, run_comand=deny]}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = p.ValidatePolicy([]string{"read_file", "list_dir", "write_file", "edit_file", "run_command"})
	if !errors.Is(err, night.ErrBadPipeline) || !strings.Contains(err.Error(), "run_comand=deny") || !strings.Contains(err.Error(), "run_command") {
		t.Errorf("ValidatePolicy = %v", err)
	}
}
