package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/statedir"
)

// result is what one nightshift command gave back.
type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs nightshift in this process, as Main would, with no
// terminal on stdin, and returns its output and exit status. The model
// variables are cleared first, so that a key in the environment of the
// person running the tests never reaches a test.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	return runCLIEnv(t, nil, args...)
}

// runCLIEnv is runCLI with env set for the command (NAME=value).
func runCLIEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "NIGHTSHIFT_MODEL"} {
		t.Setenv(k, "")
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	code := exitCode(run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// writeFiles creates files (name → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readFile returns a file's content, failing the test when it cannot.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// stateOf returns the state folder of the workspace work, in the tests'
// state directory (TestMain sets it).
func stateOf(t *testing.T, work string) string {
	t.Helper()
	base, err := statedir.Base("")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := statedir.WorkspaceDir(base, work)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
