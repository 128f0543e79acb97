package verify_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/verify"
)

func writeFile(t *testing.T, dir, path, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustParse(t *testing.T, spec string) verify.Rule {
	t.Helper()
	r, err := verify.ParseRule(spec, ".")
	if err != nil {
		t.Fatal(err)
	}
	return r
}
