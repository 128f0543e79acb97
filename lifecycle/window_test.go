package lifecycle_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/agent"
	"github.com/nightshift-dev/nightshift/lifecycle"
	"github.com/nightshift-dev/nightshift/llm/openai"
	"github.com/nightshift-dev/nightshift/llm/scripted"
	"github.com/nightshift-dev/nightshift/llm/window"
)

// readsNotes reads note1 to note4 (about 110 tokens each) and is done.
const readsNotes = `server: {window: 512, tools: ignored, model: fuzz-gemma3.gguf}
loop: true
scripts:
  - name: summary
    when: {in: last, contains: "Reply with the summary only"}
    turns: [{text: "Read note1 and note2."}]
  - name: judge
    when: {in: system, contains: "strict verifier"}
    turns: [{text: PASS}]
  - name: worker
    turns:
      - cases:
          - when: {in: last, contains: "note4:"}
            text: "Read the four notes."
          - when: {in: last, contains: "note3:"}
            tool_calls: [{name: read_file, input: {path: note4.txt}}]
          - when: {in: last, contains: "note2:"}
            tool_calls: [{name: read_file, input: {path: note3.txt}}]
          - when: {in: last, contains: "note1:"}
            tool_calls: [{name: read_file, input: {path: note2.txt}}]
          - tool_calls: [{name: read_file, input: {path: note1.txt}}]
`

// TestTheWindowIsLearntFromTheServer: a run given no window asks the
// llama.cpp server it runs on, compacts at the window it says, says where
// the window came from on the start line, and names a chat template that
// ignores tools once, before the run (issue 28).
func TestTheWindowIsLearntFromTheServer(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%t", stream), func(t *testing.T) {
			f := setup(t, "turns: [{text: unused}]")
			for i := 1; i <= 4; i++ {
				os.WriteFile(filepath.Join(f.dir, fmt.Sprintf("note%d.txt", i)),
					[]byte(fmt.Sprintf("note%d: ", i)+strings.Repeat("the tide comes in and goes out ", 14)), 0o644)
			}
			sc, err := scripted.Parse([]byte(readsNotes))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{Clock: f.clock}))
			defer srv.Close()
			c, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "fuzz-gemma3.gguf", Stream: stream, Clock: f.clock})
			if err != nil {
				t.Fatal(err)
			}
			var warnings []string
			f.cfg.Model, f.cfg.Spec.ModelName = c, "fuzz-gemma3.gguf"
			f.cfg.StateBase = t.TempDir()
			f.cfg.Warn = func(line string) { warnings = append(warnings, line) }
			res, err := lifecycle.Run(context.Background(), f.cfg, "Read note1.txt to note4.txt.")
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != agent.Done {
				t.Fatalf("outcome %s (%s)", res.Outcome, res.Reason)
			}
			var start string
			compactions := 0
			for _, e := range f.events.Events() {
				switch e.Type {
				case "start":
					start = e.Line()
				case "compact":
					compactions++
				}
			}
			if !strings.Contains(start, "window=512 (server)") {
				t.Errorf("start line %q does not say where the window came from", start)
			}
			if compactions == 0 {
				t.Error("no compaction at the server's window")
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "does not support tools") || !strings.Contains(warnings[0], window.FromLlamaCpp) {
				t.Errorf("warnings %q, want the template that ignores tools named once", warnings)
			}
			kept, _ := filepath.Glob(filepath.Join(f.cfg.StateBase, window.DirName, "*.json"))
			if len(kept) != 1 {
				t.Errorf("windows kept %v, want one file", kept)
			}
		})
	}
	t.Run("a window given is not replaced", func(t *testing.T) {
		f := setup(t, "turns: [{text: done}]")
		sc, _ := scripted.Parse([]byte("server: {window: 4096}\nturns: [{text: done}]"))
		srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{Clock: f.clock}))
		defer srv.Close()
		c, _ := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "scripted", Clock: f.clock})
		f.cfg.Model, f.cfg.Spec.ContextWindow, f.cfg.StateBase = c, 8192, t.TempDir()
		f.cfg.Verifier = nil
		res := f.run(t)
		for _, e := range f.events.Events() {
			if e.Type == "start" && strings.Contains(e.Line(), "window=") {
				t.Errorf("start line %q: the window was given", e.Line())
			}
		}
		if res.Outcome != agent.Done {
			t.Errorf("outcome %s (%s)", res.Outcome, res.Reason)
		}
	})
}
