package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSimServe starts `nightshift sim serve` as a real process, reads
// its first stdout line — exactly its base URL — points `nightshift run`
// at it with the Anthropic provider, and stops it with SIGINT (exit 130,
// interrupted, as every command a signal stops).
func TestSimServe(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"s.yaml": `
turns:
  - attempts:
      - status: 429
        headers: {retry-after-ms: "3"}
      - tool_calls: [{name: list_dir, input: {path: .}}]
  - text: "Listed over HTTP."
`})
	c := startChild(t, dir, "sim", "serve", "--scenario", "s.yaml", "--addr", "127.0.0.1:0")
	first, err := bufio.NewReader(c.stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no first line on stdout: %v", err)
	}
	url := strings.TrimSuffix(first, "\n")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*$`).MatchString(url) {
		t.Fatalf("the first stdout line is %q, want exactly the base URL", first)
	}

	t.Run("a run against its URL retries the 429 and ends done", func(t *testing.T) {
		work := filepath.Join(dir, "work")
		writeFiles(t, work, map[string]string{"a.txt": "a\n"})
		res := runCLIEnv(t, []string{"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + url},
			"run", "--dir", work, "--no-judge", "--backoff", "1ms", "List the folder")
		if res.code != 0 || res.stdout != "Listed over HTTP.\n" {
			t.Fatalf("exit %d, stdout %q, want 0 and the answer\n%s", res.code, res.stdout, res.stderr)
		}
		if !strings.Contains(res.stderr, "[retry · status=429 attempt=1 wait=3ms retry-after=3ms]") {
			t.Errorf("stderr lacks the retry line:\n%s", res.stderr)
		}
	})

	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code, stderr := c.wait(t); code != 130 {
		t.Errorf("sim serve exited %d after SIGINT, want 130\n%s", code, stderr)
	}
}

// TestSimServeHelpRecipeDoesNotHang runs the recipe `sim serve --help`
// prints, as bash runs it, against a real nightshift on PATH: it must get
// the URL, run a task against it and stop the server, where the old
// recipe (url=$(nightshift sim serve … | head -n1)) waited for the server
// to end.
func TestSimServeHelpRecipeDoesNotHang(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	help := runCLI(t, "sim", "serve", "--help").stdout
	var recipe []string
	for _, line := range strings.Split(help, "\n") {
		for _, start := range []string{"  exec 3< <(", "  read -r url", "  ANTHROPIC_BASE_URL=$url", "  kill $!"} {
			if strings.HasPrefix(line, start) {
				recipe = append(recipe, strings.TrimSpace(line))
			}
		}
	}
	if len(recipe) != 4 {
		t.Fatalf("the help's recipe has %d of its 4 lines:\n%s", len(recipe), help)
	}
	// The task line runs in the workspace with the judge off, the
	// server's exit status is printed.
	recipe[2] = strings.Replace(recipe[2], `nightshift run "TASK"`, `nightshift run --dir work --no-judge "List the folder"`, 1)
	script := strings.Join(recipe, "\n") + "\nwait $!\necho \"server exit $?\"\n"

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"s.yaml":     "turns:\n  - tool_calls: [{name: list_dir, input: {path: .}}]\n  - text: Listed.\n",
		"work/a.txt": "a\n",
	})
	bin := filepath.Join(dir, "bin")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, bin, map[string]string{"nightshift": "#!/bin/sh\n" + asMainEnv + "=1 exec " + exe + " \"$@\"\n"})
	if err := os.Chmod(filepath.Join(bin, "nightshift"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A bound on the whole script, so a recipe that hangs fails the test
	// instead of the test run.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the recipe hung:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "Listed.\n") || !strings.Contains(string(out), "server exit 130") {
		t.Errorf("recipe: %v\n%s", err, out)
	}
}
