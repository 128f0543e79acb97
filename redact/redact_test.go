package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
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

// Regression: a command that found a key could hand it on encoded,
// `base64 < key` or an Authorization: Basic header, and the redactor
// only knew its JSON, URL and HTML forms.
func TestASecretEncodedInBase64OrHexIsFound(t *testing.T) {
	long := "sk-ant-api03-" + strings.Repeat("abcdefghij0123456789", 5) + "-xyz?>~"
	r := New(key, long)
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct{ name, in string }{
		{"base64 of the key alone", b64([]byte(key))},
		{"base64 of the key with a newline, as echo | base64 prints it", b64([]byte(key + "\n"))},
		{"base64 of user:key, as in a Basic header", "Authorization: Basic " + b64([]byte("user:"+key))},
		{"base64 of the key after one byte", b64([]byte("x" + key + "yz"))},
		{"URL-safe base64", base64.URLEncoding.EncodeToString([]byte(long))},
		{"base64 wrapped at 76 columns", wrapAt(b64([]byte(long)), 76)},
		{"base64 wrapped at 64 columns", wrapAt(b64([]byte(long)), 64)},
		{"hex", hex.EncodeToString([]byte(key))},
		{"hex in capitals", strings.ToUpper(hex.EncodeToString([]byte(key)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.String(tt.in)
			if !strings.Contains(got, Mask) {
				t.Fatalf("String(%q) = %q: not redacted", tt.in, got)
			}
			// What is left beside the mask is a few characters at each
			// end: what encodes "user:", and bits of a byte or two of
			// the key mixed with a neighbour's, never the key.
			left := strings.TrimPrefix(strings.ReplaceAll(strings.ReplaceAll(got, Mask, ""), "\n", ""), "Authorization: Basic ")
			if len(left) > 10 {
				t.Errorf("String(%q) = %q: too much is left", tt.in, got)
			}
		})
	}
	if got := r.String("an ordinary line of output, SGVsbG8gd29ybGQ="); strings.Contains(got, Mask) {
		t.Errorf("other base64 was redacted: %q", got)
	}
}

func wrapAt(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	return b.String() + s + "\n"
}
