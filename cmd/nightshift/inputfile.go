package main

import (
	"errors"
	"io/fs"
	"os"
)

// checkInputFile refuses, as a usage error, an input file named by what
// (a flag, "--pipeline", or an argument, "the case file") that is not
// there, is a folder, or cannot be read, saying where its format is
// documented (hint, for example "the format is in docs/night.md"). It was the reading package's own words ("bad pipeline
// file: read adir: is a directory", "eval: open x: no such file").
func checkInputFile(what, path, hint string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usagef("%s %s: no such file: check the path (%s)", what, path, hint)
	case err != nil:
		return usagef("%s %s cannot be read (%v): name another file", what, path, errors.Unwrap(err))
	case fi.IsDir():
		return usagef("%s %s is a folder: name a file (%s)", what, path, hint)
	}
	f, err := os.Open(path)
	if err != nil {
		return usagef("%s %s cannot be read (%v): make it readable, or name another file", what, path, errors.Unwrap(err))
	}
	f.Close()
	return nil
}
