package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Regression (issue 23): `night --demo` always wrote
// /tmp/nightshift-demo.html, followed a link planted there and overwrote
// what it named. It writes into a new private folder of its own.
func TestTheDemoPageIsWrittenInAPrivateFolderNeverThroughALink(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	victim := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(tmp, "nightshift-demo.html")); err != nil {
		t.Fatal(err)
	}
	res := runCLI(t, "night", "--demo")
	if res.code != 0 && res.code != 8 {
		t.Fatalf("night --demo: exit %d\n%s", res.code, res.stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("the file behind the planted link was overwritten: %.80q", b)
	}
	m := regexp.MustCompile(`\[demo · the morning report as a page: (\S+) \(open it in a browser\)\]`).FindStringSubmatch(res.stderr)
	if m == nil {
		t.Fatalf("the demo does not name its page:\n%s", res.stderr)
	}
	page := m[1]
	if filepath.Dir(filepath.Dir(page)) != tmp || !strings.HasPrefix(filepath.Base(filepath.Dir(page)), "nightshift-demo-page-") {
		t.Errorf("page %s is not in a new folder of its own under %s", page, tmp)
	}
	fi, err := os.Stat(filepath.Dir(page))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the page's folder is %v (%v), want private (0700)", fi.Mode(), err)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "<html") {
		t.Errorf("the page %s: %v, %.60q", page, err, b)
	}
}

// --html that cannot be written is a usage error before the night runs:
// it failed with exit 1 only after running it (issue 23). A link there
// is refused too: nightshift never writes through one.
func TestTheDemoChecksItsPageBeforeTheNight(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.html")
	if err := os.Symlink(filepath.Join(dir, "elsewhere.html"), link); err != nil {
		t.Fatal(err)
	}
	unwritable := filepath.Join("/sys", "nightshift-page.html") // no file can be made there, not even by root
	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		unwritable = filepath.Join(ro, "page.html")
	}
	for name, page := range map[string]string{"a link": link, "a folder nobody may write": unwritable} {
		t.Run(name, func(t *testing.T) {
			res := runCLI(t, "night", "--demo", "--html", page)
			if res.code != 2 {
				t.Fatalf("exit %d, want 2 (usage)\n%s", res.code, res.stderr)
			}
			if strings.Contains(res.stderr, "[demo · pipeline") {
				t.Errorf("the night ran before its page was checked:\n%s", res.stderr)
			}
			if !strings.Contains(res.stderr, "--html "+page) {
				t.Errorf("the error does not name --html and the path:\n%s", res.stderr)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(dir, "elsewhere.html")); err == nil {
		t.Error("a file was written through the link")
	}
}
