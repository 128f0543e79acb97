package verify

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nightshift-dev/nightshift/llm"
)

// countingJudge returns a Judge whose model counts its calls and replies
// with reply.
func countingJudge(reply string) (*Judge, *atomic.Int32) {
	var n atomic.Int32
	m := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		n.Add(1)
		return &llm.Response{Content: []llm.Block{llm.Text(reply)}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}, nil
	})
	return &Judge{Model: m}, &n
}

func TestVerify(t *testing.T) {
	dir := setup(t, map[string]string{"post.md": chinese(3341), "notes.md": "TODO: finish"})
	rules := func(specs ...string) []Rule {
		var rs []Rule
		for _, s := range specs {
			rs = append(rs, mustRule(t, s, dir))
		}
		return rs
	}
	tests := []struct {
		name       string
		rules      []Rule
		answer     string
		noJudge    bool
		reply      string
		want       Verdict
		judgeCalls int32
	}{
		{
			name:   "every rule runs and all failures come back in one FAIL, without the judge",
			rules:  rules("min-chars:post.md:4000", "contains:notes.md:TODO", "exists:docs/install.md", "matches:notes.md:^DONE"),
			answer: "3,847 characters, meets the requirement",
			reply:  "PASS",
			want: Verdict{
				Check: "min-chars",
				Failures: []Failure{
					{Check: "min-chars", Message: "min-chars post.md: 3341 < 4000"},
					{Check: "exists", Message: "exists docs/install.md: missing"},
					{Check: "matches", Message: `matches notes.md: no match for "^DONE"`},
				},
				Reason: `min-chars post.md: 3341 < 4000; exists docs/install.md: missing; matches notes.md: no match for "^DONE"`,
			},
		},
		{
			name:   "an empty answer fails not-empty even when it is not listed",
			rules:  rules("min-chars:post.md:3000"),
			answer: "  ",
			reply:  "PASS",
			want: Verdict{
				Check:    "not-empty",
				Failures: []Failure{{Check: "not-empty", Message: "not-empty: the final answer is empty"}},
				Reason:   "not-empty: the final answer is empty",
			},
		},
		{
			name:   "a listed not-empty runs once",
			rules:  rules("not-empty", "not-empty"),
			answer: "",
			reply:  "PASS",
			want: Verdict{
				Check:    "not-empty",
				Failures: []Failure{{Check: "not-empty", Message: "not-empty: the final answer is empty"}},
				Reason:   "not-empty: the final answer is empty",
			},
		},
		{
			name:       "when every rule passes the judge decides a FAIL",
			rules:      rules("min-chars:post.md:3000"),
			answer:     "done",
			reply:      "FAIL\nthe post stops mid-argument",
			want:       Verdict{Check: "judge", Failures: []Failure{{Check: "judge", Message: "the post stops mid-argument"}}, Reason: "the post stops mid-argument"},
			judgeCalls: 1,
		},
		{
			name:       "when every rule passes the judge decides a PASS",
			rules:      rules("min-chars:post.md:3000"),
			answer:     "done",
			reply:      "PASS - complete",
			want:       Verdict{Pass: true, Check: "judge", Reason: "complete"},
			judgeCalls: 1,
		},
		{
			name:    "without a judge passing rules pass",
			rules:   rules("min-chars:post.md:3000"),
			answer:  "done",
			noJudge: true,
			want:    Verdict{Pass: true, Check: "rules"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			judge, calls := countingJudge(tt.reply)
			v := &Verifier{Rules: tt.rules, Judge: judge}
			if tt.noJudge {
				v.Judge = nil
			}
			got, usage, err := v.Verify(context.Background(), Input{Task: "write", Answer: tt.answer, Dir: dir, Changed: []string{"post.md"}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if calls.Load() != tt.judgeCalls {
				t.Errorf("judge called %d times, want %d", calls.Load(), tt.judgeCalls)
			}
			if (usage.Total() > 0) != (tt.judgeCalls > 0) {
				t.Errorf("usage = %+v; it should count the judge's call and nothing else", usage)
			}
		})
	}
}

func TestVerifyStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	judge, calls := countingJudge("PASS")
	v := &Verifier{Rules: []Rule{Cmd("true", 0)}, Judge: judge}
	if _, _, err := v.Verify(ctx, Input{Answer: "ok", Dir: t.TempDir()}); err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if calls.Load() != 0 {
		t.Error("the judge was called after the context ended")
	}
}
