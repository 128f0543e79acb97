package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/nightshift-dev/nightshift/clock"
	"github.com/nightshift-dev/nightshift/tool"
)

// The tools' names.
const (
	RememberName = "remember"
	RecallName   = "recall"
)

// Who says who writes the notes of a run.
type Who struct {
	Run   string
	Model string
	// Clock stamps the notes; default clock.Real{}.
	Clock clock.Clock
}

type rememberIn struct {
	Note string `json:"note" jsonschema:"what a later attempt at this task should know: a fact you checked, a dead end, where something is; one line or a short paragraph"`
}

type recallIn struct {
	Query string `json:"query" jsonschema:"words to look for in the notes; empty for the latest notes"`
}

// maxRecall is how many notes recall returns.
const maxRecall = 10

// Tools returns remember and recall over s. remember is write-class (it
// changes what later attempts read, not the workspace); recall is
// read-class.
func Tools(s Store, who Who) []tool.Tool {
	clk := who.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	remember := tool.Func(RememberName,
		"Keep a note for later attempts at this task (they start with the latest notes, and recall finds the rest). Notes outlive this attempt, whatever its outcome.",
		tool.Write, func(ctx context.Context, in rememberIn) (string, error) {
			text := strings.TrimSpace(in.Note)
			if text == "" {
				return "", fmt.Errorf("remember: the note is empty")
			}
			if n := len([]rune(text)); n > MaxNote {
				return "", fmt.Errorf("remember: the note has %d characters; keep it under %d", n, MaxNote)
			}
			if err := s.Add(ctx, Note{At: clk.Now().UTC(), Kind: Remembered, Text: text, Run: who.Run, Model: who.Model}); err != nil {
				return "", fmt.Errorf("remember: the note was not kept: %v", err)
			}
			return "noted", nil
		})
	recall := tool.Func(RecallName,
		"Find notes that earlier attempts at this task (and this one) kept, and why earlier attempts failed.",
		tool.Read, func(ctx context.Context, in recallIn) (string, error) {
			notes, err := s.Notes(ctx)
			if err != nil {
				return "", fmt.Errorf("recall: %v", err)
			}
			if len(notes) == 0 {
				return "no notes yet", nil
			}
			found := Find(notes, in.Query, maxRecall)
			if len(found) == 0 {
				return fmt.Sprintf("no note matches %q (%d notes in all; an empty query lists the latest)", in.Query, len(notes)), nil
			}
			var b strings.Builder
			for _, n := range found {
				b.WriteString(line(n))
				b.WriteByte('\n')
			}
			return b.String(), nil
		})
	return []tool.Tool{remember, recall}
}

// Find returns at most limit notes matching query, the best first: those
// sharing the most words with it, then the newest. An empty query
// returns the latest notes, newest first.
func Find(notes []Note, query string, limit int) []Note {
	q := words(query)
	type scored struct {
		n     Note
		score int
		i     int
	}
	var hits []scored
	for i, n := range notes {
		s := 0
		if len(q) > 0 {
			have := words(n.Text)
			for w := range q {
				if have[w] {
					s++
				}
			}
			if s == 0 {
				continue
			}
		}
		hits = append(hits, scored{n, s, i})
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.i, a.i)) })
	var out []Note
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.n)
	}
	return out
}

// words are a text's words, lower-cased, of two letters or more.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 2 {
			out[w] = true
		}
	}
	return out
}

// line is a note as a worker reads it.
func line(n Note) string {
	var tags []string
	tags = append(tags, string(n.Kind))
	if !n.At.IsZero() {
		tags = append(tags, n.At.UTC().Format("2006-01-02 15:04"))
	}
	if n.Model != "" {
		tags = append(tags, n.Model)
	}
	return "- [" + strings.Join(tags, ", ") + "] " + strings.Join(strings.Fields(n.Text), " ")
}
