package models

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite rows.go from models.yaml")

// TestTheRowsAreModelsYAML holds rows.go, the table a run reads, to
// models.yaml, the table people edit: rows.go must be what rowsSource
// writes for the rows Parse reads from models.yaml, byte for byte. With
// -update it rewrites rows.go instead. Parse also validates the file, so
// rows.go holds only rows that Load would accept.
func TestTheRowsAreModelsYAML(t *testing.T) {
	yml, err := os.ReadFile("models.yaml")
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := Parse(yml)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(parsed.rows, embeddedRows); diff != "" && !*update {
		t.Errorf("rows.go is not models.yaml (-yaml +rows.go):\n%s\nrun: go test ./llm/models -run TestTheRowsAreModelsYAML -update", diff)
	}
	want, err := rowsSource(parsed.rows)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("rows.go", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("rows.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rows.go is not what models.yaml generates; run: go test ./llm/models -run TestTheRowsAreModelsYAML -update")
	}
}

// rowsSource writes rows as the Go source of rows.go. Each row is a
// composite literal of constants and of addresses of package variables,
// which the compiler lays out as static data: nothing of it runs at start.
func rowsSource(rows []Row) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated from models.yaml by TestTheRowsAreModelsYAML; DO NOT EDIT.\n")
	b.WriteString("// Edit models.yaml, then run: go test ./llm/models -run TestTheRowsAreModelsYAML -update\n\n")
	b.WriteString("package models\n\n")
	b.WriteString("// embeddedRows is models.yaml as static data (see rows_test.go).\n")
	b.WriteString("var embeddedRows = []Row{\n")
	var floats []float64
	ref := func(p *float64) string {
		for i, f := range floats {
			if f == *p {
				return fmt.Sprintf("&price%d", i)
			}
		}
		floats = append(floats, *p)
		return fmt.Sprintf("&price%d", len(floats)-1)
	}
	price := func(p Price) string {
		var s string
		for _, f := range []struct {
			name string
			v    *float64
		}{{"Input", p.Input}, {"Output", p.Output}, {"CacheWrite", p.CacheWrite}, {"CacheRead", p.CacheRead}} {
			if f.v != nil {
				s += fmt.Sprintf("%s: %s, ", f.name, ref(f.v))
			}
		}
		return "Price{" + s + "}"
	}
	strs := func(ss []string) string {
		var s string
		for _, x := range ss {
			s += strconv.Quote(x) + ", "
		}
		return "[]string{" + s + "}"
	}
	for _, r := range rows {
		b.WriteString("\t{\n")
		fmt.Fprintf(&b, "\t\tProvider: %q,\n\t\tName: %q,\n", r.Provider, r.Name)
		if r.Aliases != nil {
			fmt.Fprintf(&b, "\t\tAliases: %s,\n", strs(r.Aliases))
		}
		if r.Roles != nil {
			fmt.Fprintf(&b, "\t\tRoles: %s,\n", strs(r.Roles))
		}
		if r.ContextWindow != 0 {
			fmt.Fprintf(&b, "\t\tContextWindow: %d,\n", r.ContextWindow)
		}
		if r.Price != nil {
			fmt.Fprintf(&b, "\t\tPrice: &%s,\n", price(*r.Price))
		}
		if lp := r.LongPrompt; lp != nil {
			fmt.Fprintf(&b, "\t\tLongPrompt: &LongPrompt{Above: %d, Price: %s},\n", lp.Above, price(lp.Price))
		}
		for _, f := range []struct{ name, v string }{{"Source", r.Source}, {"AsOf", r.AsOf}, {"Note", r.Note}} {
			if f.v != "" {
				fmt.Fprintf(&b, "\t\t%s: %q,\n", f.name, f.v)
			}
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// The prices of embeddedRows, in US dollars per million tokens, each\n// figure once.\nvar (\n")
	for i, f := range floats {
		fmt.Fprintf(&b, "\tprice%d float64 = %s\n", i, strconv.FormatFloat(f, 'g', -1, 64))
	}
	b.WriteString(")\n")
	return format.Source(b.Bytes())
}
