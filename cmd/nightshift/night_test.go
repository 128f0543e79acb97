package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// execute runs one of this file's commands with args, as main would.
func execute(t *testing.T, cmd *cobra.Command, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func exitOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if err != nil {
		return 1
	}
	return 0
}

func TestNightDemo(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	out, _, err := execute(t, newNightCmd(), "--demo", "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ended ceilings-reached", "builder 14", "empty-answer", "Nights that ended early: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo report lacks %q:\n%s", want, out)
		}
	}
}

func TestNightBadPipelineExits2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(path, []byte("window: {start: 25:00, end: 06:00}\nroles: {}\n"), 0o644) //nolint:errcheck // read back below
	_, _, err := execute(t, newNightCmd(), "--pipeline", path, "--db", filepath.Join(t.TempDir(), "x.db"))
	if exitOf(err) != 2 {
		t.Errorf("bad pipeline: exit %d (%v), want 2", exitOf(err), err)
	}
	if _, _, err := execute(t, newNightCmd()); exitOf(err) != 2 {
		t.Errorf("no --pipeline: exit %d, want 2", exitOf(err))
	}
}

func TestTaskCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	id, _, err := execute(t, newTaskCmd(), "add", "a chart of the tides", "--score", "7", "--db", db)
	if err != nil || strings.TrimSpace(id) != "1" {
		t.Fatalf("task add printed %q, %v", id, err)
	}
	out, _, err := execute(t, newTaskCmd(), "fail", "1", "--reason", "returned nothing on the 17th", "--db", db)
	if err != nil || !strings.Contains(out, "scope task") {
		t.Errorf("task fail: %q, %v", out, err)
	}
	list, _, _ := execute(t, newTaskCmd(), "list", "--db", db)
	if !strings.Contains(list, "a chart of the tides") || !strings.Contains(list, "7") {
		t.Errorf("task list:\n%s", list)
	}
	if _, _, err := execute(t, newTaskCmd(), "approve", "1", "--db", db); exitOf(err) != 2 {
		t.Errorf("approving a task that is not parked: exit %d (%v), want 2", exitOf(err), err)
	}
	if _, _, err := execute(t, newTaskCmd(), "fail", "x", "--reason", "r", "--db", db); exitOf(err) != 2 {
		t.Errorf("a bad ID: exit %d, want 2", exitOf(err))
	}
	rep, _, err := execute(t, newReportCmd(), "--json", "--db", db)
	if err != nil || !strings.Contains(rep, `"nights"`) {
		t.Errorf("report --json: %q, %v", rep, err)
	}
}
