package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// slow is a tool with a timeout of its own that keeps its partial result
// when that timeout passes, as run_command does.
type slow struct {
	fake
	own time.Duration
}

func (s slow) Timeout() time.Duration { return s.own }

// Regression (issue 11): run_command said "killed after 2m0s" but the
// tool set's 60-second timeout stopped it first, and its output was lost.
func TestATimeouterIsGivenItsOwnTimeout(t *testing.T) {
	tl := slow{own: time.Hour, fake: fake{name: "run_command", class: Danger, schema: pathSchema,
		run: func(ctx context.Context, _ json.RawMessage) Result {
			// The call's deadline is what the set gave it.
			dl, ok := ctx.Deadline()
			if !ok || time.Until(dl) < time.Hour {
				return Error("cut by the set's timeout")
			}
			return OK("given its own timeout")
		}}}
	s := mustSet(t, tl)
	s.SetConfig(Config{Timeout: time.Millisecond})
	if res := s.Call(context.Background(), "run_command", json.RawMessage(`{"path":"x"}`)); res.Content != "given its own timeout" {
		t.Errorf("result %+v", res)
	}
}

func TestAShorterToolTimeoutDoesNotShortenTheSets(t *testing.T) {
	s := mustSet(t)
	s.SetConfig(Config{Timeout: time.Minute})
	if got := s.timeoutFor(slow{own: time.Second}); got != time.Minute {
		t.Errorf("timeout = %s, want the set's", got)
	}
}

func TestRedactRewritesEveryResult(t *testing.T) {
	s := mustSet(t, fake{name: "leak", class: Read, schema: pathSchema, run: func(context.Context, json.RawMessage) Result {
		return OK("the key is sk-secret-value")
	}})
	s.SetConfig(Config{Redact: func(v string) string { return strings.ReplaceAll(v, "sk-secret-value", "[redacted]") }})
	if res := s.Call(context.Background(), "leak", json.RawMessage(`{"path":"x"}`)); res.Content != "the key is [redacted]" {
		t.Errorf("result %q", res.Content)
	}
	// An error written from the model's own input goes through it too.
	if res := s.Call(context.Background(), "leak", json.RawMessage(`{"path":"sk-secret-value","x":1}`)); strings.Contains(res.Content, "sk-secret-value") {
		t.Errorf("result %q shows the secret", res.Content)
	}
}

func TestValidateChecksACallWithoutRunningIt(t *testing.T) {
	ran := false
	s := mustSet(t, fake{name: "write_file", class: Write, schema: pathSchema, run: func(context.Context, json.RawMessage) Result {
		ran = true
		return OK("")
	}})
	for _, tt := range []struct{ name, input, want string }{
		{"write_file", `{"path": 3}`, "does not match the tool's schema"},
		{"write_file", `{`, "not valid JSON"},
		{"wirte_file", `{}`, `unknown tool "wirte_file"; the tools are: write_file`},
	} {
		err := s.Validate(tt.name, json.RawMessage(tt.input))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Tool != tt.name || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%s, %s) = %v; want an *InputError saying %q", tt.name, tt.input, err, tt.want)
		}
	}
	if err := s.Validate("write_file", json.RawMessage(`{"path":"a"}`)); err != nil {
		t.Errorf("a good call: %v", err)
	}
	if ran {
		t.Error("Validate ran the tool")
	}
}

// TestCallValidatedRunsWithoutCheckingAgainAndRedacts: the agent's path
// for a call it has validated runs the tool as Call does (its result
// redacted, an unknown name answered with the tools that exist), without
// parsing the input a second time: an input Validate would refuse is
// handed to the tool as is.
func TestCallValidatedRunsWithoutCheckingAgainAndRedacts(t *testing.T) {
	var got string
	s := mustSet(t, fake{name: "leak", class: Read, schema: pathSchema, run: func(_ context.Context, in json.RawMessage) Result {
		got = string(in)
		return OK("the key is sk-secret-value")
	}})
	s.SetConfig(Config{Redact: func(v string) string { return strings.ReplaceAll(v, "sk-secret-value", "[redacted]") }})
	if res := s.CallValidated(context.Background(), "leak", json.RawMessage(`{"path":3}`)); res.IsError || res.Content != "the key is [redacted]" {
		t.Errorf("result %+v", res)
	}
	if got != `{"path":3}` {
		t.Errorf("the tool was given %q", got)
	}
	if res := s.CallValidated(context.Background(), "laek", json.RawMessage(`{}`)); !res.IsError || !strings.Contains(res.Content, `unknown tool "laek"; the tools are: leak`) {
		t.Errorf("an unknown name: %+v", res)
	}
}
