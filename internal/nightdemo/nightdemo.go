// Package nightdemo is the pipeline `nightshift night --demo` runs: its
// files, the simulated evening it starts on and the task a person added
// before it. It is the command's, not part of package night's API.
//
//	path, err := nightdemo.Write(dir)
//	// load path with night.LoadPipeline, add nightdemo.Task, run the
//	// night on clock.NewFake(nightdemo.Start)
package nightdemo

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

//go:embed *.yaml
var files embed.FS

// Start is when the demo night starts, by its simulated clock: the
// evening of seed 003's 21 October.
var Start = time.Date(2025, 10, 21, 22, 0, 0, 0, time.UTC)

// Task is the task a person added before the demo night: the one that
// fails the way the seed's did.
const Task = "booklet from a public-domain text"

// Write writes the demo's pipeline file and scenarios into dir and
// returns the pipeline file's path.
func Write(dir string) (string, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		data, err := files.ReadFile(e.Name())
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "pipeline.yaml"), nil
}
