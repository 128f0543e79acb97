package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/internal/terminal"
	"github.com/nightshift-dev/nightshift/ledger"
	nightpkg "github.com/nightshift-dev/nightshift/night"
	"github.com/nightshift-dev/nightshift/runspec"
)

func newTaskCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Add, list, show, fail by hand, approve, deny or drop the night's tasks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("task needs a subcommand: add, list, show, fail, approve, deny, drop")
		},
	}
	cmd.AddCommand(newTaskAddCmd(), newTaskListCmd(), newTaskShowCmd(), newTaskFailCmd(), newTaskDecideCmd(ledger.Approved), newTaskDecideCmd(ledger.Denied),
		newTaskDropCmd())
	return cmd
}

// withLedger opens the --db ledger for one command.
func withLedger(cmd *cobra.Command, db string, fn func(ctx context.Context, l *ledger.Ledger) error) error {
	ctx := cmd.Context()
	l, err := openLedger(ctx, db, ledger.Config{})
	if err != nil {
		return err
	}
	defer l.Close(context.WithoutCancel(ctx)) //nolint:errcheck // nothing left to write
	return fn(ctx, l)
}

// withExistingLedger is withLedger for the commands that only read or
// change what a night recorded: a --db that names no ledger is a mistake
// (a misspelt path, the wrong folder) to report, not an empty ledger to
// create and report on. Only night and task add create one. A PostgreSQL
// URL is left to the server to answer.
func withExistingLedger(cmd *cobra.Command, db string, fn func(ctx context.Context, l *ledger.Ledger) error) error {
	path := resolveDB(db)
	if err := checkLedgerFile(path); err != nil {
		return err
	}
	if !ledger.IsPostgres(path) {
		file := ledgerFile(path)
		fi, err := os.Stat(file)
		if errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
			return usagef("no ledger at %s (nightshift night or nightshift task add creates one; --db or $NIGHTSHIFT_DB names another)", file)
		}
	}
	return withLedger(cmd, db, fn)
}

// ledgerFile is the file of a SQLite ledger's path.
func ledgerFile(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, "sqlite://"), "sqlite:")
}

// sqliteHeader opens every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// checkLedgerFile refuses, before SQLite opens it, a SQLite ledger path
// that names a folder or a file that is not an SQLite database: opening
// it would fail with SQLite's own words ("file is not a database (26)"),
// or, for a file that is empty, write a ledger's tables into it.
// Creating the ledger (night, task add) may start from an empty file;
// reading it may not (withExistingLedger).
func checkLedgerFile(path string) error {
	if ledger.IsPostgres(path) {
		// The URL is not echoed: it may carry a password.
		if _, err := url.Parse(path); err != nil {
			return usagef("ledger (--db or $NIGHTSHIFT_DB) is not a valid PostgreSQL URL: want postgres://USER[:PASSWORD]@HOST:PORT/DB?sslmode=disable, special characters percent-encoded (a space as %%20)")
		}
		return nil
	}
	file := ledgerFile(path)
	if file == "" {
		return usagef("ledger %q (--db or $NIGHTSHIFT_DB) has no path after the scheme: give the ledger's file, for example --db sqlite:nightshift.db or --db nightshift.db", path)
	}
	fi, err := os.Stat(file)
	if errors.Is(err, fs.ErrNotExist) {
		// A new ledger, in a folder that must be there: SQLite said
		// "unable to open database file (14)" (exit 1).
		if dir := filepath.Dir(file); !isDir(dir) {
			return usagef("ledger %s (--db or $NIGHTSHIFT_DB): the folder %s does not exist: create it, or name a file in another", file, dir)
		}
		return nil
	}
	if err != nil {
		// A name too long, a folder on the way that is a file: SQLite
		// said "unable to open database file (14)".
		return usagef("ledger %s (--db or $NIGHTSHIFT_DB): %v: name another path", file, errors.Unwrap(err))
	}
	if fi.IsDir() {
		return usagef("ledger %s (--db or $NIGHTSHIFT_DB) is a folder: name the ledger's file in it (for example %s)", file, filepath.Join(file, "nightshift.db"))
	}
	if fi.Size() == 0 {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return usagef("ledger %s (--db or $NIGHTSHIFT_DB): %v", file, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sqliteHeader {
		return usagef("ledger %s (--db or $NIGHTSHIFT_DB) is not a nightshift ledger (not an SQLite database): name the ledger file, or a new path for nightshift night or task add to create one there", file)
	}
	return nil
}

func taskID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("%q is not a task ID (see nightshift task list)", s)
	}
	return id, nil
}

// notFound turns a missing task, or one with no parked action to
// approve or deny (verb; empty for fail), into a usage error that says
// which it is and what to do; it was the ledger's "ledger: not found".
func notFound(ctx context.Context, l *ledger.Ledger, id int64, verb string, err error) error {
	if !errors.Is(err, ledger.ErrNotFound) {
		return err
	}
	t, terr := l.Task(ctx, id)
	if errors.Is(terr, ledger.ErrNotFound) {
		return usagef("no task %d: nightshift task list shows the tasks and their IDs (--db or $NIGHTSHIFT_DB names another ledger)", id)
	}
	if terr != nil || verb == "" {
		return err
	}
	if ok, _ := l.Approvals(ctx, id); len(ok) > 0 {
		return usagef("task %d's action was approved already (%s; the task is %s): there is nothing left to %s", id, terminal.Escape(ok[len(ok)-1].Action), t.State, verb)
	}
	return usagef("task %d is %s, not parked: it has no action waiting for a person to %s (nightshift task list shows which tasks are parked)", id, t.State, verb)
}

func newTaskAddCmd() *cobra.Command {
	var db, body string
	var score float64
	var keys ledger.TaskVerify // the task's own verify keys, over the builder role's
	cmd := &cobra.Command{
		Use:   `add "TITLE"`,
		Short: "Add a task to the backlog",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef(`task add takes one "TITLE" (quote it)`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(args[0]) == "" {
				return usagef(`task add needs a title: nightshift task add "Write the install guide"`)
			}
			if math.IsNaN(score) || math.IsInf(score, 0) {
				// NaN was the database's NOT NULL error (exit 1); an
				// infinite score put the task above every other for good.
				return usagef("--score %v: give a finite number, for example --score 7", score)
			}
			return withLedger(cmd, db, func(ctx context.Context, l *ledger.Ledger) error {
				nt := ledger.NewTask{Title: args[0], Body: body}
				if cmd.Flags().Changed("score") {
					nt.Score = &score
				}
				tv, err := taskVerify(cmd, keys)
				if err != nil {
					return err
				}
				nt.Verify = tv
				t, err := l.AddTask(ctx, nt, time.Now())
				if err != nil {
					return err
				}
				fmt.Fprintln(dataOut(cmd), t.ID)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&body, "body", "", "the task's description")
	cmd.Flags().Float64Var(&score, "score", 0, "score it now (otherwise the judge scores it)")
	// The task's own verify keys, the run spec's verify group, over the
	// builder role's (docs/night.md).
	fl := cmd.Flags()
	fl.StringArrayVar((*[]string)(&keys.Checks), "check", nil, doc("check")+"; added to roles.builder.checks")
	fl.StringVar(&keys.Rubric, "rubric", "", "extra criteria for the judge of this task, instead of roles.builder.rubric")
	fl.BoolVar(&keys.NoJudge, "no-judge", false, doc("no-judge"))
	fl.StringVar(&keys.JudgeModel, "judge", "", "the model under the pipeline's models that judges this task (default roles.builder.judge)")
	fl.IntVar(&keys.MaxVerifyRounds, "max-verify-rounds", 0, "the FAILs fed back before a FAIL ends an attempt unverified (default roles.builder.max_verify_rounds)")
	fl.StringVar(&keys.OutputSchema, "output-schema", "", "JSON Schema FILE the final answer must satisfy, read now and kept in the ledger")
	dbFlag(cmd, &db)
	return cmd
}

// taskVerify is a night task's own verify keys as `task add` was given
// them, nil for none: checked by the run spec's one validation (the
// error names the flag), and the output schema's content read now, so
// that an attempt is checked by it and never by the file again.
func taskVerify(cmd *cobra.Command, keys ledger.TaskVerify) (*ledger.TaskVerify, error) {
	given := false
	for _, n := range []string{"check", "rubric", "no-judge", "judge", "max-verify-rounds", "output-schema"} {
		given = given || cmd.Flags().Changed(n)
	}
	if !given {
		return nil, nil
	}
	var s runspec.Spec
	s.Verify = keys.Verify
	s.JudgeModel = "" // a model under the pipeline's models, which the night checks
	if err := s.Validate(); err != nil {
		return nil, usageError(err)
	}
	if keys.NoJudge && keys.JudgeModel != "" {
		return nil, usagef("--no-judge and --judge cannot be given together: drop one")
	}
	if keys.OutputSchema != "" {
		if _, err := loadSchema(keys.OutputSchema); err != nil {
			return nil, usageError(err)
		}
		data, err := os.ReadFile(keys.OutputSchema)
		if err != nil {
			return nil, usageError(err)
		}
		keys.Schema, keys.OutputSchema = data, absPath(keys.OutputSchema)
	}
	return &keys, nil
}

func newTaskListCmd() *cobra.Command {
	var db string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tasks in the order the builder takes them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withExistingLedger(cmd, db, func(ctx context.Context, l *ledger.Ledger) error {
				ts, err := l.Tasks(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					enc := json.NewEncoder(dataOut(cmd))
					enc.SetIndent("", "  ")
					return enc.Encode(ts)
				}
				w := tabwriter.NewWriter(humanOut(cmd), 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "ID\tSTATE\tSCORE\tLEVEL\tSOURCE\tTITLE")
				for _, t := range ts {
					sc := "-"
					if t.Scored {
						sc = strconv.FormatFloat(t.Score, 'g', -1, 64)
					}
					// A title holds what a proposer wrote: escaped, it keeps
					// to its line and its column.
					fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\t%s\n", t.ID, t.State, sc, t.Level, terminal.Escape(t.Source), terminal.Escape(t.Title))
				}
				return w.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	dbFlag(cmd, &db)
	return cmd
}

func newTaskFailCmd() *cobra.Command {
	var db, reason string
	cmd := &cobra.Command{
		Use:   "fail ID --reason TEXT",
		Short: "Record a failure of a task by hand; it counts like any other",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("task fail takes one task ID")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := taskID(args[0])
			if err != nil {
				return err
			}
			if strings.TrimSpace(reason) == "" {
				return usagef(`task fail needs --reason "what went wrong"`)
			}
			return withExistingLedger(cmd, db, func(ctx context.Context, l *ledger.Ledger) error {
				var night int64
				if n, err := l.OpenNight(ctx); err == nil {
					night = n.ID // tonight's skip list too
				}
				// Charged as the rules table's by-hand row says.
				f, err := l.FailTaskCharged(ctx, id, night, reason, time.Now(), ledgerCharge(ctx, l, nightpkg.ByHand))
				if err != nil {
					return notFound(ctx, l, id, "", err)
				}
				fmt.Fprintf(humanOut(cmd), "task %d: failure %d recorded (scope %s, level %d)\n", id, f.ID, f.Scope, f.Level)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why it failed, in words")
	dbFlag(cmd, &db)
	return cmd
}

func newTaskDecideCmd(d ledger.Decision) *cobra.Command {
	var db string
	verb, short := "approve", "Approve a parked task's action: it goes first, and the same call is allowed"
	if d == ledger.Denied {
		verb, short = "deny", "Deny a parked task's action: the task fails, with the reason recorded"
	}
	cmd := &cobra.Command{
		Use:   verb + " ID",
		Short: short,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("task %s takes one task ID", verb)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := taskID(args[0])
			if err != nil {
				return err
			}
			return withExistingLedger(cmd, db, func(ctx context.Context, l *ledger.Ledger) error {
				// A denial is charged as the rules table's denied row says.
				p, err := l.DecideCharged(ctx, id, d, time.Now(), ledgerCharge(ctx, l, nightpkg.Denied))
				if err != nil {
					return notFound(ctx, l, id, verb, err)
				}
				fmt.Fprintf(humanOut(cmd), "task %d: %s %s\n", id, d, terminal.Escape(p.Action))
				return nil
			})
		},
	}
	dbFlag(cmd, &db)
	return cmd
}

// isDir reports whether path is a folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// ledgerCharge is how a failure the ledger records for a person's
// command (task fail, task deny) is charged: as the rules table of the
// latest night says (its pipeline's rules over the default, recorded
// with its setup: ledger.Setup.Charges), else as the default table does.
func ledgerCharge(ctx context.Context, l *ledger.Ledger, k nightpkg.Kind) ledger.Charge {
	if nights, err := l.Nights(ctx); err == nil {
		for i := len(nights) - 1; i >= 0; i-- {
			s, err := l.NightSetup(ctx, nights[i].ID)
			if err != nil {
				continue // a night no process recorded the setup of
			}
			if c, ok := s.Charges[string(k)]; ok {
				return c
			}
			break // the latest night's setup, of a version that kept none
		}
	}
	return nightpkg.Rules(nightpkg.DefaultRules).Ledger(k, ledger.Builder)
}
