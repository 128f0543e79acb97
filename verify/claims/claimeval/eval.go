package claimeval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nightshift-dev/nightshift/internal/crashpoint"
	"github.com/nightshift-dev/nightshift/verify"
	"github.com/nightshift-dev/nightshift/verify/claims"
)

// Result is the check's finding on one expected claim, or on a claim it
// found that no expectation lists.
type Result struct {
	Case, Lang string
	// Kind and Path are the claim's; Want the expected verdict ("" for
	// a claim no expectation lists), Got the check's ("missing" when it
	// found no such claim).
	Kind, Path, Want, Got string
	// Text is the claim as the check found it.
	Text string
}

// Run runs the claims check, configured by cfg, on every case, each in a
// fresh workspace holding its files, and measures it against the
// expectations.
func Run(ctx context.Context, cfg claims.Config, cases []Case) (*Report, error) {
	tmp, err := os.MkdirTemp("", "nightshift-claimeval-")
	if err != nil {
		return nil, fmt.Errorf("claimeval: %w", err)
	}
	defer os.RemoveAll(tmp)
	check := claims.New(cfg)
	rep := &Report{Cases: len(cases)}
	for i := range cases {
		c := &cases[i]
		in, err := materialise(filepath.Join(tmp, fmt.Sprint(i)), c)
		if err != nil {
			return nil, fmt.Errorf("claimeval: case %q: %w", c.Name, err)
		}
		found := check.Claims(ctx, in)
		// A point where a test interrupts a measurement midway.
		crashpoint.Hit("claimeval: case checked")
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rep.add(c, found)
	}
	rep.finish()
	return rep, nil
}

// materialise writes a case's files into dir and returns the check's
// input, as a run's verifier would build it.
func materialise(dir string, c *Case) (verify.Input, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return verify.Input{}, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return verify.Input{}, err
	}
	defer root.Close()
	// Files is left nil: the check opens Dir as a workspace, and reads it
	// under the workspace's rules, as a run's verifier does.
	in := verify.Input{Task: c.Task, Answer: c.Answer, Dir: dir}
	for _, f := range c.Files {
		if d := filepath.Dir(f.Path); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return verify.Input{}, err
			}
		}
		if err := root.WriteFile(f.Path, []byte(f.content()), 0o644); err != nil {
			return verify.Input{}, err
		}
		if !f.Unchanged {
			in.Changed = append(in.Changed, filepath.ToSlash(filepath.Clean(f.Path)))
		}
	}
	for _, p := range c.Deleted {
		in.Changed = append(in.Changed, filepath.ToSlash(filepath.Clean(p)))
	}
	if !c.NoHistory {
		in.Ran = []verify.Ran{}
		for _, r := range c.Ran {
			if r.Command == "" {
				in.Ran = append(in.Ran, verify.Ran{Tool: r.Tool})
				continue
			}
			in.Ran = append(in.Ran, verify.Ran{Tool: "run_command", Command: r.Command, OK: r.Exit == 0, Status: fmt.Sprintf("exit status %d", r.Exit)})
		}
	}
	return in, nil
}
