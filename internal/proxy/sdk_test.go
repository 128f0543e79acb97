package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/internal/proxy"
)

// sdkCase is one call of testdata/sdk.cjs, and what the SDK made of it.
type sdkCase struct {
	SDK    string `json:"sdk"`
	Op     string `json:"op"`
	Stream bool   `json:"stream"`
	Fault  string `json:"fault,omitempty"`
	Reply  *struct {
		Stop        string   `json:"stop"`
		Text        string   `json:"text"`
		Tools       []sdkUse `json:"tools"`
		InputTokens int      `json:"input_tokens"`
		Models      []string `json:"models"`
	} `json:"reply,omitempty"`
	Error *struct {
		Name       string `json:"name"`
		Status     int    `json:"status"`
		Message    string `json:"message"`
		RetryAfter string `json:"retry_after"`
	} `json:"error,omitempty"`
}

type sdkUse struct{ Name, Input string }

func (c sdkCase) String() string {
	return fmt.Sprintf("%s %s stream=%t fault=%s", c.SDK, c.Op, c.Stream, c.Fault)
}

// nodeSDKs returns node and the folder of the SDK packages, skipping the
// test where either is missing (.ci/run installs them: npm ci --prefix
// .ci/node).
func nodeSDKs(t *testing.T) (string, string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is absent: the SDK clients cannot run (.ci/run installs node and npm ci --prefix .ci/node)")
	}
	modules, err := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"@anthropic-ai/sdk", "openai"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			t.Skipf("%s is not installed in .ci/node: run npm ci --prefix .ci/node --no-audit --no-fund (.ci/run does)", pkg)
		}
	}
	return node, modules
}

// TestTheNodeSDKsParseEveryReply has the official Node clients
// (@anthropic-ai/sdk and openai, as .ci/node pins them) call `sim serve`
// through the proxy: every route without a fault (messages and chat
// completions streamed and not, count_tokens, the model listings), and
// every fault kind streamed and not. Each reply must be what the SDK
// parses into the fault's meaning: the error and status of an error
// reply, a failure for a broken connection, and for a rewritten answer
// the answer as rewritten.
func TestTheNodeSDKsParseEveryReply(t *testing.T) {
	node, modules := nodeSDKs(t)
	var cases []sdkCase
	at := map[int]string{}
	add := func(c sdkCase) {
		cases = append(cases, c)
		if c.Fault != "" {
			at[len(cases)] = c.Fault
		}
	}
	for _, sdk := range []string{"anthropic", "openai"} {
		add(sdkCase{SDK: sdk, Op: "messages"})
		add(sdkCase{SDK: sdk, Op: "messages", Stream: true})
		if sdk == "anthropic" {
			add(sdkCase{SDK: sdk, Op: "count_tokens"})
		}
		add(sdkCase{SDK: sdk, Op: "models"})
		for _, kind := range proxy.Kinds() {
			add(sdkCase{SDK: sdk, Op: "messages", Fault: kind})
			add(sdkCase{SDK: sdk, Op: "messages", Stream: true, Fault: kind})
		}
	}
	var sched strings.Builder
	sched.WriteString("at:\n")
	for n := 1; n <= len(cases); n++ {
		if k, ok := at[n]; ok {
			fmt.Fprintf(&sched, "  %d: %s\n", n, k)
		}
	}
	up, _ := simUpstream(t, answerScenario)
	srv, _, _ := startProxy(t, proxy.Config{Upstream: up.URL, Schedule: schedule(t, sched.String())})

	in, _ := json.Marshal(cases)
	cmd := exec.CommandContext(t.Context(), node, filepath.Join("testdata", "sdk.cjs"), srv.URL, string(in))
	cmd.Env = []string{"NODE_PATH=" + modules, "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var got []sdkCase
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c sdkCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		got = append(got, c)
	}
	if len(got) != len(cases) {
		t.Fatalf("%d cases reported, want %d:\n%s\n%s", len(got), len(cases), out, stderr.String())
	}
	for _, c := range got {
		t.Run(c.String(), func(t *testing.T) { checkSDK(t, c) })
	}
}

// checkSDK checks what an SDK made of one case.
func checkSDK(t *testing.T, c sdkCase) {
	t.Helper()
	raw, _ := json.Marshal(c)
	fail := func(format string, args ...any) { t.Errorf("%s\n%s", fmt.Sprintf(format, args...), raw) }
	wantStatus := func(status int) {
		if c.Error == nil || c.Error.Status != status {
			fail("want an API error of status %d", status)
		}
	}
	wantFailure := func() {
		if c.Error == nil || c.Error.Status != 0 {
			fail("want a failure without a status (the connection, a timeout)")
		}
	}
	wantReply := func() bool {
		if c.Reply == nil {
			fail("want a reply")
			return false
		}
		return true
	}
	stop := map[string]map[string]string{
		"anthropic": {"tool_use": "tool_use", "max_tokens": "max_tokens", "end_turn": "end_turn"},
		"openai":    {"tool_use": "tool_calls", "max_tokens": "length", "end_turn": "stop"},
	}[c.SDK]
	switch c.Fault {
	case "":
		if !wantReply() {
			return
		}
		switch c.Op {
		case "count_tokens":
			if c.Reply.InputTokens < 1 {
				fail("no input tokens counted")
			}
		case "models":
			if !slices.Contains(c.Reply.Models, "scripted") {
				fail("the listing lacks scripted")
			}
		default:
			if c.Reply.Text != answerText || c.Reply.Stop != stop["tool_use"] || len(c.Reply.Tools) != 1 ||
				c.Reply.Tools[0].Name != "read_file" || !jsonEqual(c.Reply.Tools[0].Input, answerInput) {
				fail("want the whole answer")
			}
		}
	case "429":
		wantStatus(429)
		if c.Error != nil && c.Error.RetryAfter != "1" {
			fail("retry-after %q, want 1", c.Error.RetryAfter)
		}
	case "529":
		if c.SDK == "openai" {
			wantStatus(503)
		} else {
			wantStatus(529)
		}
	case "500":
		wantStatus(500)
	case "reset", "reset_after_headers", "cut", "stall":
		wantFailure()
	case "truncate":
		if wantReply() && (c.Reply.Stop != stop["max_tokens"] || c.Reply.Text == "" || !strings.HasPrefix(answerText, c.Reply.Text) ||
			len(c.Reply.Text) >= len(answerText) || len(c.Reply.Tools) != 0) {
			fail("want the answer's first part, stopped by max_tokens")
		}
	case "empty":
		if wantReply() && (c.Reply.Stop != stop["end_turn"] || c.Reply.Text != "" || len(c.Reply.Tools) != 0) {
			fail("want an empty answer")
		}
	case "broken_json":
		if !wantReply() {
			return
		}
		if len(c.Reply.Tools) != 1 || c.Reply.Tools[0].Name != "read_file" || c.Reply.Text != answerText {
			fail("want the text and the read_file call")
			return
		}
		if in := c.Reply.Tools[0].Input; jsonEqual(in, answerInput) {
			fail("the input %s is whole", in)
		}
	case "unknown_tool":
		if wantReply() && (len(c.Reply.Tools) != 1 || c.Reply.Tools[0].Name != "read_file_v2" || !jsonEqual(c.Reply.Tools[0].Input, answerInput)) {
			fail("want read_file renamed read_file_v2, its input whole")
		}
	default:
		fail("no check for fault %s", c.Fault)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
