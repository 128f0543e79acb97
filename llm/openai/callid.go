package openai

import (
	"crypto/rand"
	"encoding/hex"
)

// newCallID returns a fresh tool-call ID in OpenAI's shape, for a call that
// an OpenAI-compatible server sent without one. The conversation sent back
// pairs every tool result with its call by this ID: an empty one pairs
// nothing, and strict servers refuse it.
func newCallID() string {
	var b [12]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	return "call_" + hex.EncodeToString(b[:])
}

// callID returns id, or a fresh one when the server sent none.
func callID(id string) string {
	if id == "" {
		return newCallID()
	}
	return id
}
