package journal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPatchShowsWhatTheRunAttempted(t *testing.T) {
	root, stateDir := setup(t)
	j := begin(t, root, stateDir)
	change(t, j, "a.txt", func() error { return os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\nbeta\n"), 0o644) })
	change(t, j, "new.txt", func() error { return os.WriteFile(filepath.Join(root, "new.txt"), []byte("fresh\n"), 0o644) })
	change(t, j, "docs/readme.md", func() error { return os.Remove(filepath.Join(root, "docs/readme.md")) })
	change(t, j, "bin/run.sh", func() error { return os.Chmod(filepath.Join(root, "bin/run.sh"), 0o644) })
	change(t, j, "blob.bin", func() error { return os.WriteFile(filepath.Join(root, "blob.bin"), []byte{0, 1, 2}, 0o644) })
	change(t, j, "empty", func() error { return os.Mkdir(filepath.Join(root, "empty"), 0o755) })
	// Touched but left as it was: not in the patch.
	change(t, j, "docs/deep/note.txt", func() error { return nil })

	got, err := j.Patch()
	if err != nil {
		t.Fatal(err)
	}
	want := `diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1 +1,2 @@
 alpha
+beta
diff --git a/bin/run.sh b/bin/run.sh
old mode 100755
new mode 100644
diff --git a/blob.bin b/blob.bin
new file mode 100644
Binary files /dev/null and b/blob.bin differ
diff --git a/docs/readme.md b/docs/readme.md
deleted file mode 100600
--- a/docs/readme.md
+++ /dev/null
@@ -1 +0,0 @@
-# readme
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+fresh
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Patch (-want +got):\n%s", diff)
	}
	// The patch is read before the rollback; the rollback still works.
	if _, err := j.Rollback(); err != nil {
		t.Fatal(err)
	}
}
