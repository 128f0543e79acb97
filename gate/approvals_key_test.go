package gate_test

import (
	"encoding/json"
	"testing"

	"github.com/nightshift-dev/nightshift/gate"
)

// Regression: a parked command's key showed "echo a \u003e b" in the
// report instead of what the model wrote.
func TestKeyKeepsTheCommandAsWritten(t *testing.T) {
	got := gate.Key("run_command", json.RawMessage(`{ "command": "echo a > b && cat <c" }`))
	if want := `run_command {"command":"echo a > b && cat <c"}`; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
}
