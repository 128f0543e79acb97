package taskfile_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nightshift-dev/nightshift/taskfile"
)

func TestATaskFileSaysHowCommandsRun(t *testing.T) {
	s, err := taskfile.Parse([]byte(`
task: Run the tests.
sandbox: bwrap
sandbox_net: true
env: [GOFLAGS, GOPROXY]
command_timeout: 5m
`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.CommandDuration()
	if s.Sandbox != "bwrap" || !s.SandboxNet || strings.Join(s.Env, ",") != "GOFLAGS,GOPROXY" || err != nil || d != 5*time.Minute {
		t.Errorf("spec %+v, timeout %s, %v", s, d, err)
	}
	for _, bad := range []string{"task: x\nsandbox: docker\n", "task: x\ncommand_timeout: soon\n", "task: x\ncommand_timeout: -1s\n"} {
		if _, err := taskfile.Parse([]byte(bad)); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}
