package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeTags are the build tags README.md installs nightshift with; the
// tests that build the binary as a user has it (the documentation's
// commands, BenchmarkStart) build it with these.
const readmeTags = "nopostgres"

// TestTheReadmeInstallsTheLightBuildAndSaysHowToAddTheFullOne holds the
// README to the build the tests make, and the message of a light build
// without its companion to the README's line for installing it.
func TestTheReadmeInstallsTheLightBuildAndSaysHowToAddTheFullOne(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"CGO_ENABLED=0 go install -tags " + readmeTags + " ./cmd/nightshift ",
		strings.TrimSuffix(installPostgresBuild, ", in nightshift's source") + " ",
	} {
		if !bytes.Contains(readme, []byte("\n"+want)) {
			t.Errorf("README.md has no line starting %q", want)
		}
	}
}

// TestTheLightBuildLinksNoPostgres: the tag takes pgx and River's pgx
// driver out of the binary, and only the tag does.
func TestTheLightBuildLinksNoPostgres(t *testing.T) {
	deps := func(tags ...string) string {
		args := append([]string{"list", "-deps"}, tags...)
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	pg := []string{"github.com/jackc/pgx/v5\n", "github.com/riverqueue/river/riverdriver/riverpgxv5\n"}
	light, full := deps("-tags", readmeTags), deps()
	for _, p := range pg {
		if strings.Contains(light, p) {
			t.Errorf("built with -tags %s, nightshift still links %s", readmeTags, strings.TrimSpace(p))
		}
		if !strings.Contains(full, p) {
			t.Errorf("the full build does not link %s: where is its PostgreSQL ledger?", strings.TrimSpace(p))
		}
	}
}

// TestALightBuildHandsAPostgresLedgerToTheFullBuild builds nightshift as
// the README installs it and gives it PostgreSQL ledgers: with the full
// build beside it or on $PATH (here a script that says what it was given),
// without one, and with a light build in its place.
func TestALightBuildHandsAPostgresLedgerToTheFullBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds nightshift")
	}
	bin := t.TempDir()
	light := filepath.Join(bin, "nightshift")
	build := exec.Command("go", "build", "-tags", readmeTags, "-o", light, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags %s: %v\n%s", readmeTags, err, out)
	}
	const dsn = "postgres://night:made-up-password@127.0.0.1:1/nightshift"
	// The full build's stand-in: it prints its process ID, arguments and
	// the environment it was handed, and exits 7.
	const companion = "#!/bin/sh\necho \"pid=$$\"\nfor a in \"$@\"; do echo \"arg=$a\"; done\necho \"handed=$" + handedToEnv + "\"\necho \"kept=$KEPT\"\nexit 7\n"
	run := func(t *testing.T, path string, env []string, args ...string) (int, int, string, string) {
		t.Helper()
		// A hand-over that loops never ends: the deadline ends the test.
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, light, args...)
		cmd.Dir = t.TempDir()
		cmd.Env = append([]string{"PATH=" + path, "HOME=" + cmd.Dir, "TMPDIR=" + cmd.Dir}, env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), cmd.Process.Pid, stdout.String(), stderr.String()
	}
	sysPath := os.Getenv("PATH")
	t.Run("none", func(t *testing.T) {
		code, _, _, stderr := run(t, sysPath, nil, "task", "list", "--db", dsn)
		if code != 2 {
			t.Errorf("exit %d, want 2 (usage): %s", code, stderr)
		}
		for _, want := range []string{"built without PostgreSQL support", postgresBuild, installPostgresBuild, "SQLite ledger"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("the message does not say %q:\n%s", want, stderr)
			}
		}
		if strings.Contains(stderr, "made-up-password") {
			t.Errorf("the message shows the URL's password:\n%s", stderr)
		}
	})
	handed := func(t *testing.T, full, path string, env []string, args ...string) {
		t.Helper()
		code, pid, stdout, stderr := run(t, path, env, args...)
		if code != 7 {
			t.Fatalf("exit %d, want the full build's 7\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		want := "pid=" + strconv.Itoa(pid) + "\n"
		for _, a := range args {
			want += "arg=" + a + "\n"
		}
		want += "handed=" + full + "\nkept=yes\n"
		if stdout != want {
			t.Errorf("the full build was given:\n%s\nwant (the same process, arguments and environment):\n%s", stdout, want)
		}
		if stderr != "" {
			t.Errorf("the light build wrote before it handed over: %s", stderr)
		}
	}
	t.Run("beside", func(t *testing.T) {
		full := filepath.Join(bin, postgresBuild)
		if err := os.WriteFile(full, []byte(companion), 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(full)
		handed(t, full, sysPath, []string{"KEPT=yes"}, "task", "list", "--db", dsn)
		// From the environment, and with another command's flags.
		handed(t, full, sysPath, []string{"KEPT=yes", "NIGHTSHIFT_DB=" + dsn}, "report", "--json")
		// A SQLite ledger stays here.
		code, _, stdout, stderr := run(t, sysPath, nil, "task", "list", "--db", "nightshift.db")
		if code != 2 || !strings.Contains(stderr, "no ledger at nightshift.db") || stdout != "" {
			t.Errorf("a SQLite ledger: exit %d\nstdout: %s\nstderr: %s\nwant exit 2, no ledger at nightshift.db, from the light build itself", code, stdout, stderr)
		}
	})
	t.Run("on PATH", func(t *testing.T) {
		other := t.TempDir()
		full := filepath.Join(other, postgresBuild)
		if err := os.WriteFile(full, []byte(companion), 0o755); err != nil {
			t.Fatal(err)
		}
		handed(t, full, other+string(os.PathListSeparator)+sysPath, []string{"KEPT=yes"}, "task", "list", "--db", dsn)
	})
	t.Run("light in its place", func(t *testing.T) {
		other := t.TempDir()
		full := filepath.Join(other, postgresBuild)
		if err := copyFile(full, light); err != nil {
			t.Fatal(err)
		}
		// The second time, as handed over before by another light build:
		// Go reads the first entry of a name, so the hand-over must
		// replace that entry, not add one after it, or the light build in
		// the full one's place hands the command to itself for ever.
		for _, env := range [][]string{nil, {handedToEnv + "=/elsewhere/" + postgresBuild}} {
			code, _, _, stderr := run(t, other+string(os.PathListSeparator)+sysPath, env, "task", "list", "--db", dsn)
			if code != 2 || !strings.Contains(stderr, full+", the build nightshift hands such a ledger to, was built without PostgreSQL support too") {
				t.Errorf("with %q: exit %d, want 2 and a message that %s is a light build too:\n%s", env, code, full, stderr)
			}
		}
	})
	t.Run("version", func(t *testing.T) {
		_, _, stdout, _ := run(t, sysPath, nil, "version")
		if !strings.Contains(stdout, "without the PostgreSQL ledger (-tags nopostgres; nightshift-postgres has it)") {
			t.Errorf("nightshift version of the light build: %q", stdout)
		}
	})
}

// TestTheDemoNightsOwnLedgerIsNotHandedOver: `night --demo` makes its own
// SQLite ledger unless --db names one, so a PostgreSQL $NIGHTSHIFT_DB is
// not its ledger, and a light build runs it itself.
func TestTheDemoNightsOwnLedgerIsNotHandedOver(t *testing.T) {
	t.Setenv("NIGHTSHIFT_DB", "postgres://night@db.example.org/nightshift")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"night", "--demo"}, ""},
		{[]string{"night", "--demo", "--db", "demo.db"}, "demo.db"},
		{[]string{"night", "--pipeline", "p.yaml"}, "postgres://night@db.example.org/nightshift"},
		{[]string{"task", "list", "--db", "postgresql://h/db"}, "postgresql://h/db"},
		{[]string{"run", "a task"}, ""},
	} {
		root := newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		cmd, rest, err := root.Find(c.args)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatal(err)
		}
		if got := ledgerOfCommand(cmd); got != c.want {
			t.Errorf("%q: the ledger is %q, want %q", c.args, got, c.want)
		}
	}
}
