package agent

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewRunID returns a sortable, unique run ID: the UTC time, then random hex.
func NewRunID(now time.Time) string {
	var b [4]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails (Go 1.24+)
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}
