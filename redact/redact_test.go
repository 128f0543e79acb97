package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/event"
	"github.com/nightshift-dev/nightshift/gate"
)

const key = "sk-ant-api03-0123456789abcdef"

func TestString(t *testing.T) {
	r := New(key, "short", `pa"ss<&>word`)
	tests := []struct{ name, in, want string }{
		{"a secret is replaced wherever it is", "key=" + key + "; again " + key, "key=[redacted]; again [redacted]"},
		{"a value shorter than 8 characters is left alone", "a short answer", "a short answer"},
		{"a secret escaped in JSON is found", `{"v":"pa\"ss\u003c\u0026\u003eword"}`, `{"v":"[redacted]"}`},
		{"a secret escaped in JSON without HTML escaping is found", `{"v":"pa\"ss<&>word"}`, `{"v":"[redacted]"}`},
		{"a secret percent-encoded is found", "?p=pa%22ss%3C%26%3Eword", "?p=[redacted]"},
		{"a secret escaped in HTML is found", "<td>pa&#34;ss&lt;&amp;&gt;word</td>", "<td>[redacted]</td>"},
		{"text without secrets is unchanged", "nothing to see", "nothing to see"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestALongerSecretThatHoldsAShorterOneIsReplacedWhole(t *testing.T) {
	r := New("abcdefgh", "abcdefgh-ijklmnop")
	if got := r.String("x abcdefgh-ijklmnop y"); got != "x [redacted] y" {
		t.Errorf("got %q", got)
	}
}

func TestANilRedactorChangesNothing(t *testing.T) {
	var r *Redactor
	if r.String(key) != key || string(r.Bytes([]byte(key))) != key || r.Len() != 0 {
		t.Error("a nil Redactor changed something")
	}
	var b bytes.Buffer
	fmt.Fprint(r.Writer(&b), key)
	if b.String() != key {
		t.Error("a nil Redactor's writer changed something")
	}
}

func TestFromEnv(t *testing.T) {
	environ := []string{
		"ANTHROPIC_API_KEY=" + key,
		"MY_KEY_ENV=named-by-api-key-env",
		"GITHUB_TOKEN=ghp_0123456789",
		"NIGHTSHIFT_DB=postgres://nightshift:db-pass%40word@db.example:5432/night",
		"DATABASE_URL=postgres://u:pw@db/x",
		"PATH=/usr/bin:/bin",
		"HOME=/home/someone",
		"TOKENIZERS_PARALLELISM=false",
	}
	r := FromEnv(environ, "MY_KEY_ENV")
	in := strings.Join([]string{key, "named-by-api-key-env", "ghp_0123456789", "db-pass%40word", "db-pass@word",
		"postgres://u:pw@db/x", "/usr/bin:/bin", "/home/someone", "false"}, "\n")
	want := strings.Join([]string{Mask, Mask, Mask, Mask, Mask, Mask, "/usr/bin:/bin", "/home/someone", "false"}, "\n")
	if diff := cmp.Diff(want, r.String(in)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// pw is too short to replace on its own; the whole URL is replaced.
	if got := r.String("pw"); got != "pw" {
		t.Errorf("a 2-character password was replaced on its own: %q", got)
	}
}

func TestErrorKeepsTheChain(t *testing.T) {
	r := New(key)
	err := r.Error(fmt.Errorf("anthropic: 401 for key %s: %w", key, fs.ErrPermission))
	if strings.Contains(err.Error(), key) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Error() = %q, Is = %v", err, errors.Is(err, fs.ErrPermission))
	}
	plain := errors.New("no secret")
	if r.Error(plain) != plain {
		t.Error("an error without a secret was wrapped")
	}
}

func TestSinkRedactsDetailAndData(t *testing.T) {
	r := New(key)
	var rec event.Recorder
	r.Sink(&rec).Emit(event.Event{Type: "tool", Detail: "run_command " + key, Data: map[string]any{
		"result": "ANTHROPIC_API_KEY=" + key, "tools": []string{key}, "n": 3,
		"nested": map[string]any{"list": []any{key, 1}},
	}})
	b, err := json.Marshal(rec.Events()[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(key)) || !bytes.Contains(b, []byte(`"n":3`)) {
		t.Errorf("event %s", b)
	}
}

func TestAuditorRedactsTheSummary(t *testing.T) {
	r := New(key)
	var b bytes.Buffer
	a := r.Auditor(gate.NewAudit(&b))
	if err := a.Record(gate.Entry{Tool: "run_command", Input: "run_command: curl -H 'x-api-key: " + key + "'", Decision: "allow"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), key) || !strings.Contains(b.String(), Mask) {
		t.Errorf("audit line %s", b.String())
	}
}

func TestASecretAddedLaterIsRedactedByWhatHoldsTheRedactor(t *testing.T) {
	r := New()
	var b bytes.Buffer
	w := r.Writer(&b)
	fmt.Fprintln(w, "before: "+key)
	r.Add(key, "tiny")
	fmt.Fprintln(w, "after: "+key)
	if b.String() != "before: "+key+"\nafter: [redacted]\n" || r.Len() != 1 {
		t.Errorf("got %q, %d secrets", b.String(), r.Len())
	}
	if Underlying(w) != &b {
		t.Error("Underlying does not find the wrapped writer")
	}
}
