//go:build !linux

package sandbox

import (
	"errors"
	"io/fs"
)

// Off Linux the probe's answer is not kept: there is no bubblewrap to
// probe.
func fileIdentity(fs.FileInfo) (string, error) { return "", errors.New("not linux") }

func kernelID() (string, error) { return "", errors.New("not linux") }
