package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// eventContract is the JSON-lines schema of docs/events.md, read from the
// document itself, so that the tests hold the code to what users were
// promised: every field a line carries is documented for its type, with
// the documented JSON type.
type eventContract struct {
	// common holds the fields every line has (ts, run, step, type).
	common map[string]string
	// types maps an event type to its documented fields and their types.
	types map[string]map[string]string
	// order lists the types as the document does.
	order []string
	// elems maps a type's array-of-objects field to the documented
	// fields of its elements (rows like `claims[].kind`).
	elems map[string]map[string]map[string]string
}

// required lists, per type, the fields the document describes as always
// there (the others are "when there was one", "on FAIL", "for a tool").
var required = map[string][]string{
	"start":     {"task", "model", "max_steps"},
	"retry":     {"attempt", "wait_ms"},
	"turn":      {"stop_reason", "tools", "input_tokens", "output_tokens"},
	"tool":      {"id", "tool", "input", "is_error"},
	"truncated": {"action"},
	"schema":    {"error"},
	"verify":    {"verdict", "check"},
	"outcome":   {"outcome", "exit", "steps", "reason", "input_tokens", "output_tokens"},
}

var (
	typeHeading = regexp.MustCompile("^### `([a-z-]+)`")
	tableRow    = regexp.MustCompile("^\\| (`[^|]+`) \\| ([a-z ]+) \\|")
	elemRow     = regexp.MustCompile("^\\| `([a-z_]+)\\[\\]\\.([a-z_]+)` \\| ([a-z ]+) \\|")
	backticked  = regexp.MustCompile("`([a-z_]+)`")
)

// loadEventContract parses the field tables of the events document.
func loadEventContract(t *testing.T, path string) *eventContract {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &eventContract{common: map[string]string{}, types: map[string]map[string]string{}, elems: map[string]map[string]map[string]string{}}
	fields := c.common
	typ := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := typeHeading.FindStringSubmatch(line); m != nil {
			fields = map[string]string{}
			c.types[m[1]] = fields
			c.order = append(c.order, m[1])
			typ = m[1]
			continue
		}
		if m := elemRow.FindStringSubmatch(line); m != nil {
			if c.elems[typ] == nil {
				c.elems[typ] = map[string]map[string]string{}
			}
			if c.elems[typ][m[1]] == nil {
				c.elems[typ][m[1]] = map[string]string{}
			}
			c.elems[typ][m[1]][m[2]] = strings.TrimSpace(m[3])
			continue
		}
		if m := tableRow.FindStringSubmatch(line); m != nil {
			for _, name := range backticked.FindAllStringSubmatch(m[1], -1) {
				fields[name[1]] = strings.TrimSpace(m[2])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ts", "run", "step", "type"} {
		if c.common[k] == "" {
			t.Fatalf("%s: the common field %q is not documented", path, k)
		}
	}
	for typ, names := range required {
		for _, n := range names {
			if c.types[typ][n] == "" {
				t.Fatalf("%s: type %q does not document its field %q", path, typ, n)
			}
		}
	}
	return c
}

// checkJSONType reports whether v has the documented type.
func checkJSONType(doc string, v any) bool {
	switch doc {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "decimal":
		_, ok := v.(float64)
		return ok
	case "bool":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array of strings", "array of numbers", "array of objects":
		a, ok := v.([]any)
		if !ok {
			return false
		}
		elem := map[string]string{"array of strings": "string", "array of numbers": "number", "array of objects": "object"}[doc]
		for _, e := range a {
			if !checkJSONType(elem, e) {
				return false
			}
		}
		return true
	}
	return false
}

// check validates one run's events in order and returns them.
func (c *eventContract) check(events []map[string]any) error {
	if len(events) == 0 {
		return fmt.Errorf("no events")
	}
	lastOfRun := map[string]int{}
	for i, e := range events {
		if err := c.checkFields(e); err != nil {
			return fmt.Errorf("event %d%v", i+1, err)
		}
		typ := e["type"].(string)
		run := e["run"].(string)
		if typ == "start" && e["resumed"] == true {
			delete(lastOfRun, run) // a paused run goes on
		}
		if j, ended := lastOfRun[run]; ended {
			return fmt.Errorf("event %d (%s) of run %s comes after its outcome (event %d), which must be the last", i+1, typ, run, j)
		}
		if typ == "outcome" {
			lastOfRun[run] = i + 1
		}
	}
	if events[len(events)-1]["type"] != "outcome" {
		return fmt.Errorf("the last event is %q, want outcome", events[len(events)-1]["type"])
	}
	return nil
}

// checkFields checks one event's fields against the document: the common
// ones, each of its type's with the documented JSON type, and the ones
// its type always has. Its errors begin with the event's type, to follow
// its number.
func (c *eventContract) checkFields(e map[string]any) error {
	for name, doc := range c.common {
		v, ok := e[name]
		if !ok || !checkJSONType(doc, v) {
			return fmt.Errorf(": field %q is %v, want a %s", name, v, doc)
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, e["ts"].(string)); err != nil {
		return fmt.Errorf(": ts: %v", err)
	}
	typ := e["type"].(string)
	fields, ok := c.types[typ]
	if !ok {
		return fmt.Errorf(": type %q is not documented in docs/events.md", typ)
	}
	for name, v := range e {
		if _, common := c.common[name]; common {
			continue
		}
		doc, ok := fields[name]
		if !ok {
			return fmt.Errorf(" (%s): field %q is not documented", typ, name)
		}
		if !checkJSONType(doc, v) {
			return fmt.Errorf(" (%s): field %q is %#v, want a %s", typ, name, v, doc)
		}
		if doc == "array of objects" {
			for i, e := range v.([]any) {
				for k, ev := range e.(map[string]any) {
					edoc, ok := c.elems[typ][name][k]
					if !ok {
						return fmt.Errorf(" (%s): field %s[%d].%s is not documented", typ, name, i, k)
					}
					if !checkJSONType(edoc, ev) {
						return fmt.Errorf(" (%s): field %s[%d].%s is %#v, want a %s", typ, name, i, k, ev, edoc)
					}
				}
			}
		}
	}
	for _, name := range required[typ] {
		if _, ok := e[name]; !ok {
			return fmt.Errorf(" (%s): field %q is missing", typ, name)
		}
	}
	return nil
}

// summary renders an event as one line a script can match: the step,
// the type, and the type's fields as compact JSON with sorted keys.
func summary(e map[string]any) string {
	data := map[string]any{}
	for k, v := range e {
		switch k {
		case "ts", "run", "step", "type":
		default:
			data[k] = v
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // show "<" as scripts would write it
	enc.Encode(data)         //nolint:errcheck // a decoded JSON value always encodes
	return fmt.Sprintf("step=%v %s %s", e["step"], e["type"], strings.TrimSuffix(b.String(), "\n"))
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
