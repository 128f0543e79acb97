package main

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/llm/models"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// Regression: with no --model (and no NIGHTSHIFT_MODEL), the start line
// named no model and the start event's model was "": the run used the
// provider's default, and nothing said which. The start line, the event
// and the judge's field now name the model table's default.
func TestTheStartLineNamesTheDefaultModel(t *testing.T) {
	table := models.Default()
	tests := []struct {
		name, provider string
		env            func(url string) []string
		args           []string
		want           []string
	}{
		{"anthropic, its judge the worker's", "anthropic", anthropicAt, nil,
			[]string{" model=" + table.DefaultModel("anthropic", models.Worker) + " ", " judge=" + table.DefaultModel("anthropic", models.Worker) + " "}},
		{"openai, with --no-judge", "openai", openaiAt, []string{"--no-judge"},
			[]string{" model=" + table.DefaultModel("openai", models.Worker) + " "}},
		{"a judge named by its provider alone gets that provider's default judge", "anthropic",
			anthropicAt, []string{"--judge-model", "anthropic:"},
			[]string{" judge=" + table.DefaultModel("anthropic", models.Judge) + " "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := scripted.Parse([]byte(`turns: [{text: "Hi."}, {text: "PASS: it says hi"}]`))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(scripted.NewServer(sc, scripted.ServerConfig{}))
			defer srv.Close()
			events := filepath.Join(t.TempDir(), "events.jsonl")
			args := append([]string{"run", "--dir", t.TempDir(), "--events", events, "--state-dir", t.TempDir()}, tt.args...)
			res := runCLIEnv(t, tt.env(srv.URL), append(args, "Say hi")...)
			line := firstLine(res.stderr, "[start · ")
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("start line %q lacks %q\n%s", line, w, res.stderr)
				}
			}
			f, err := os.Open(events)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s := bufio.NewScanner(f)
			if !s.Scan() {
				t.Fatal("no event")
			}
			var start struct{ Type, Model string }
			if err := json.Unmarshal(s.Bytes(), &start); err != nil {
				t.Fatal(err)
			}
			if want := table.DefaultModel(tt.provider, models.Worker); start.Type != "start" || start.Model != want {
				t.Errorf("start event %s, want model %q", s.Bytes(), want)
			}
		})
	}
}

func anthropicAt(url string) []string {
	return []string{"ANTHROPIC_API_KEY=a", "ANTHROPIC_BASE_URL=" + url}
}

func openaiAt(url string) []string { return []string{"OPENAI_API_KEY=o", "OPENAI_BASE_URL=" + url} }
