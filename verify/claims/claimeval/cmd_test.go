package claimeval

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := NewCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func TestClaimsCommand(t *testing.T) {
	t.Run("without CASES it checks the shipped cases", func(t *testing.T) {
		out, err := runCmd(t)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "claims eval · ") || !strings.Contains(out, "count ") || !strings.Contains(out, "lang zh") {
			t.Errorf("report:\n%s", out)
		}
	})
	t.Run("a CASES file is read, and --about changes the tolerance", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(path, []byte("- {name: a, lang: en, task: t, answer: 'a.md is about 100 characters.', files: [{path: a.md, chars: 85}], expect: [{kind: chars, path: a.md, verdict: 'true'}]}\n"), 0o644)
		out, err := runCmd(t, path)
		if err != nil || !strings.Contains(out, "1 case ") || !strings.Contains(out, "want true, got false") {
			t.Errorf("err %v, report at the default tenth:\n%s", err, out)
		}
		out, err = runCmd(t, "--about", "0.2", path)
		if err != nil || strings.Contains(out, "got false") {
			t.Errorf("err %v, report at a fifth:\n%s", err, out)
		}
	})
	for name, args := range map[string][]string{
		"a missing CASES file is a usage error": {"testdata/nope.yaml"},
		"--about 1 is a usage error":            {"--about", "1"},
		"two files are a usage error":           {"a.yaml", "b.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := runCmd(t, args...); !errors.Is(err, ErrUsage) {
				t.Errorf("err = %v, want a usage error", err)
			}
		})
	}
}
