package night

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

//go:embed demo/*.yaml
var demoFiles embed.FS

// DemoStart is when the demo night starts, by its simulated clock: the
// evening of seed 003's 21 October.
var DemoStart = time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)

// DemoTask is the task a person added before the demo night: the one that
// fails the way the seed's did.
const DemoTask = "booklet from a public-domain text"

// WriteDemo writes the demo's pipeline file and scenarios into dir and
// returns the pipeline file's path.
func WriteDemo(dir string) (string, error) {
	entries, err := fs.ReadDir(demoFiles, "demo")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		data, err := demoFiles.ReadFile("demo/" + e.Name())
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "pipeline.yaml"), nil
}
