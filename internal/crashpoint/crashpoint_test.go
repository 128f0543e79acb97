package crashpoint

import (
	"slices"
	"testing"
)

func TestHitCallsTheHookOnlyWhileSet(t *testing.T) {
	Hit("before any hook")
	var got []string
	Set(func(name string) { got = append(got, name) })
	Hit("one")
	Hit("two")
	Set(nil)
	Hit("after")
	if !slices.Equal(got, []string{"one", "two"}) {
		t.Fatalf("hook saw %v", got)
	}
}
