package eval

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

func runCmd(t *testing.T, args ...string) (stdout, stderr string, spec string, err error) {
	t.Helper()
	sc, err := scripted.Load("testdata/judge.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := NewCmd(func(_ *cobra.Command, s string) (llm.Model, string, error) {
		spec = s
		return scripted.New(sc, scripted.Config{}), "scripted-judge", nil
	})
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), spec, err
}

func TestEvalCommand(t *testing.T) {
	t.Run("without CASES it judges the shipped cases", func(t *testing.T) {
		out, errOut, spec, err := runCmd(t, "--runs", "2", "--judge-model", "scripted:judge")
		if err != nil {
			t.Fatal(err)
		}
		if spec != "scripted:judge" {
			t.Errorf("newJudge got %q, want the --judge-model value", spec)
		}
		if !strings.Contains(out, "12 cases") || !strings.Contains(out, "2 runs · judge scripted-judge") || !strings.Contains(out, "transcript") {
			t.Errorf("report:\n%s", out)
		}
		if n := strings.Count(errOut, "[eval · "); n != 12*2*2 {
			t.Errorf("%d progress lines, want %d:\n%s", n, 12*2*2, errOut)
		}
	})
	t.Run("a CASES file is read", func(t *testing.T) {
		out, _, _, err := runCmd(t, "testdata/cases.yaml")
		if err != nil || !strings.Contains(out, "12 cases") {
			t.Errorf("err %v, report:\n%s", err, out)
		}
	})
	for name, args := range map[string][]string{
		"a missing CASES file is a usage error": {"testdata/nope.yaml"},
		"--runs 0 is a usage error":             {"--runs", "0"},
		"two files are a usage error":           {"a.yaml", "b.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := runCmd(t, args...)
			if !errors.Is(err, ErrUsage) {
				t.Errorf("err = %v, want a usage error", err)
			}
		})
	}
}
