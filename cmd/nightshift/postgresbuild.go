package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nightshift-dev/nightshift/ledger"
)

// The README installs nightshift with -tags nopostgres: Go runs the
// package initialisation of everything a binary links, used or not, and
// pgx's was 2 MiB of the peak memory of every `nightshift run`, which
// never opens a ledger (BenchmarkStart; issue 23). The full build, with
// the PostgreSQL store, is installed beside it as nightshift-postgres. A
// command of the light build given a postgres:// ledger hands itself to
// the full build before it does anything: execve, with the same command
// line, environment, process ID and standard streams, so that a script,
// a signal or a waiting parent sees one command.

// postgresBuild is the full build's name, beside this one or on $PATH.
const postgresBuild = "nightshift-postgres"

// installPostgresBuild says how to install the full build.
const installPostgresBuild = `CGO_ENABLED=0 go build -o "$(go env GOPATH)/bin/nightshift-postgres" ./cmd/nightshift, in nightshift's source`

// handedToEnv names, in the environment of the build a command was
// handed to, that build's file: found there by a light build, it means
// that the file named nightshift-postgres is a light build too, which
// would hand the command to itself for ever.
const handedToEnv = "NIGHTSHIFT_HANDED_TO"

type argsKey struct{}

// withArgs keeps the command line run was given, for a hand-over.
func withArgs(ctx context.Context, args []string) context.Context {
	return context.WithValue(ctx, argsKey{}, args)
}

// ledgerOfCommand is the ledger cmd will open, "" for none: --db, else
// $NIGHTSHIFT_DB, else the default; none for a command without --db and
// for `night --demo` without --db, which makes a ledger of its own.
func ledgerOfCommand(cmd *cobra.Command) string {
	db := cmd.Flags().Lookup("db")
	if db == nil {
		return ""
	}
	if demo := cmd.Flags().Lookup("demo"); demo != nil && demo.Value.String() == "true" && !db.Changed {
		return ""
	}
	return resolveDB(db.Value.String())
}

// toPostgresBuild hands the command to the full build when db names a
// PostgreSQL ledger and this build has no PostgreSQL store. It returns
// nil when there is nothing to hand over, and an error when the hand-over
// cannot be made; when it is made, it does not return.
func toPostgresBuild(ctx context.Context, db string) error {
	if ledger.Postgres || !ledger.IsPostgres(db) {
		return nil
	}
	self, _ := os.Executable()
	if to := os.Getenv(handedToEnv); to != "" && to == self {
		return usagef("the ledger (--db or $NIGHTSHIFT_DB) is on PostgreSQL, and %s, the build nightshift hands such a ledger to, was built without PostgreSQL support too (-tags nopostgres): build it without that tag: %s", self, installPostgresBuild)
	}
	path, err := findPostgresBuild(self)
	if err != nil {
		return usagef("the ledger (--db or $NIGHTSHIFT_DB) is on PostgreSQL, and this nightshift was built without PostgreSQL support (-tags nopostgres, as the README installs it) and found no %s beside it or on $PATH: install the full build there: %s; or name a SQLite ledger (--db FILE)", postgresBuild, installPostgresBuild)
	}
	args, _ := ctx.Value(argsKey{}).([]string)
	// One entry, this one: a process reads the first of a name, and an
	// older one (a command handed over by another light build, higher up)
	// would hide a light build in this one's place.
	env := slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, handedToEnv+"=") })
	err = syscall.Exec(path, append([]string{path}, args...), append(env, handedToEnv+"="+path))
	return fmt.Errorf("handing the command to %s, the build with PostgreSQL support: %w", path, err)
}

// findPostgresBuild finds the full build: beside self first (the two are
// installed together), then on $PATH. The path it returns has its links
// resolved, as os.Executable's is in the process it starts.
func findPostgresBuild(self string) (string, error) {
	path := ""
	if self != "" {
		beside := filepath.Join(filepath.Dir(self), postgresBuild)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			path = beside
		}
	}
	if path == "" {
		var err error
		if path, err = exec.LookPath(postgresBuild); err != nil {
			return "", err
		}
	}
	return filepath.EvalSymlinks(path)
}
