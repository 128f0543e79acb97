package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nightshift-dev/nightshift/statedir"
)

// cmdExits is `exits CODE PROGRAM ARGS...`: run the program and require
// exactly that exit status. Its stdout and stderr stay for the next
// `stdout`/`stderr` commands, as after `exec`.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad CODE %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// readJSONLines decodes a file of JSON objects, one a line.
func readJSONLines(path string) ([]map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("%s line %d: %v", path, n, err)
		}
		out = append(out, m)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("%s: the last line is not terminated", path)
	}
	return out, sc.Err()
}

// cmdEvents is `events FILE`: check every line of an --events file
// against docs/events.md and print one summary line per event
// (`step=N TYPE {fields}`) for `stdout` to match.
func (c *eventContract) cmdEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: events FILE")
	}
	events, err := readJSONLines(ts.MkAbs(args[0]))
	ts.Check(err)
	// A file may hold several runs (it is appended to): check each.
	byRun := map[string][]map[string]any{}
	var order []string
	for _, e := range events {
		run, _ := e["run"].(string)
		if _, ok := byRun[run]; !ok {
			order = append(order, run)
		}
		byRun[run] = append(byRun[run], e)
	}
	for _, run := range order {
		if err := c.check(byRun[run]); err != nil {
			ts.Fatalf("%s, run %s: %v", args[0], run, err)
		}
	}
	for _, e := range events {
		fmt.Fprintln(ts.Stdout(), summary(e))
	}
}

// wsState returns the state folder of the workspace dir, in the
// script's state directory (outside $WORK).
func wsState(ts *testscript.TestScript, dir string) string {
	p, err := statedir.WorkspaceDir(ts.Getenv(statedir.Env), ts.MkAbs(dir))
	ts.Check(err)
	return p
}

// cmdRecord is `record DIR [EVENTS-FILE]`: check the run records of the
// workspace DIR (in its state folder, outside it) (their events against
// the contract, their outcome against the last event) and print them
// oldest first, one `key: value` line per field, the events as their
// types, and the patch line by line as `patch| ...`. `! record DIR`
// passes when DIR has no run record.
func (c *eventContract) cmdRecord(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: record DIR [EVENTS-FILE]")
	}
	if neg {
		paths, _ := filepath.Glob(filepath.Join(wsState(ts, args[0]), statedir.RunsName, "*.json"))
		if len(paths) > 0 {
			ts.Fatalf("%s has run records: %v", args[0], paths)
		}
		return
	}
	// With an events file, each record's events must be the very events
	// the file holds for that run.
	fromFile := map[string][]map[string]any{}
	if len(args) == 2 {
		events, err := readJSONLines(ts.MkAbs(args[1]))
		ts.Check(err)
		for _, e := range events {
			run, _ := e["run"].(string)
			fromFile[run] = append(fromFile[run], e)
		}
	}
	paths, err := filepath.Glob(filepath.Join(wsState(ts, args[0]), statedir.RunsName, "*.json"))
	ts.Check(err)
	if len(paths) == 0 {
		ts.Fatalf("no run records for %s in %s", args[0], wsState(ts, args[0]))
	}
	type rec struct {
		path    string
		started time.Time
		fields  map[string]json.RawMessage
	}
	var recs []rec
	for _, p := range paths {
		data, err := os.ReadFile(p)
		ts.Check(err)
		r := rec{path: p}
		ts.Check(json.Unmarshal(data, &r.fields))
		var started string
		ts.Check(json.Unmarshal(r.fields["started"], &started))
		r.started, err = time.Parse(time.RFC3339Nano, started)
		ts.Check(err)
		recs = append(recs, r)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].started.Before(recs[j].started) })
	out := ts.Stdout()
	for _, r := range recs {
		var head struct {
			Run     string           `json:"run"`
			Outcome string           `json:"outcome"`
			Exit    float64          `json:"exit"`
			Patch   string           `json:"patch"`
			Events  []map[string]any `json:"events"`
		}
		raw, _ := json.Marshal(r.fields) // re-encodes what was just decoded
		ts.Check(json.Unmarshal(raw, &head))
		if filepath.Base(r.path) != head.Run+".json" {
			ts.Fatalf("%s: the record's run is %q", r.path, head.Run)
		}
		if err := c.check(head.Events); err != nil {
			ts.Fatalf("%s: %v", r.path, err)
		}
		last := head.Events[len(head.Events)-1]
		if last["outcome"] != head.Outcome || last["exit"] != head.Exit {
			ts.Fatalf("%s: the record says %s (exit %v), its outcome event %v (exit %v)",
				r.path, head.Outcome, head.Exit, last["outcome"], last["exit"])
		}
		if len(args) == 2 && !reflect.DeepEqual(fromFile[head.Run], head.Events) {
			ts.Fatalf("%s: the record's events differ from those in %s", r.path, args[1])
		}
		fmt.Fprintf(out, "--- record %s\n", head.Run)
		for _, k := range sortedKeys(r.fields) {
			switch k {
			case "events":
				types := make([]string, len(head.Events))
				for i, e := range head.Events {
					types[i] = e["type"].(string)
				}
				fmt.Fprintf(out, "events: %s\n", strings.Join(types, ","))
			case "patch":
				for _, l := range strings.Split(strings.TrimRight(head.Patch, "\n"), "\n") {
					fmt.Fprintf(out, "patch| %s\n", l)
				}
			default:
				var b bytes.Buffer
				ts.Check(json.Compact(&b, r.fields[k]))
				fmt.Fprintf(out, "%s: %s\n", k, b.String())
			}
		}
	}
}

// cmdAudit is `audit DIR`: check the audit log of the workspace DIR, in
// its state folder (mode 0600, every documented field on every line), and
// print one line per decision: `TOOL DECISION by=BY run=yes input=INPUT`.
func cmdAudit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: audit DIR")
	}
	path := filepath.Join(wsState(ts, args[0]), statedir.AuditName)
	fi, err := os.Stat(path)
	ts.Check(err)
	if fi.Mode().Perm() != 0o600 {
		ts.Fatalf("%s: mode %v, want 0600", path, fi.Mode().Perm())
	}
	lines, err := readJSONLines(path)
	ts.Check(err)
	for i, l := range lines {
		for _, k := range []string{"ts", "run", "tool", "class", "input", "decision", "by"} {
			if s, _ := l[k].(string); s == "" {
				ts.Fatalf("%s line %d: no %q", path, i+1, k)
			}
		}
		if _, err := time.Parse(time.RFC3339Nano, l["ts"].(string)); err != nil {
			ts.Fatalf("%s line %d: ts: %v", path, i+1, err)
		}
		fmt.Fprintf(ts.Stdout(), "%s %s by=%s input=%s\n", l["tool"], l["decision"], l["by"], l["input"])
	}
}
