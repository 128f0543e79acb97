package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/nightshift-dev/nightshift/ledger"
)

func TestOwnerNames(t *testing.T) {
	tests := []struct {
		owner string
		ok    bool
	}{
		{"box1", true},
		{"box_1", true},
		{"night-shift-2", true},
		{"Box1", false},
		{"box 1", false},
		{"_box", false},
		{"box-", false},
	}
	for _, tt := range tests {
		verdict := "is refused"
		if tt.ok {
			verdict = "is accepted"
		}
		t.Run(fmt.Sprintf("the owner %q %s", tt.owner, verdict), func(t *testing.T) {
			l, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "o.db"), ledger.Config{Owner: tt.owner})
			if err == nil {
				l.Close(context.Background()) //nolint:errcheck // test cleanup
			}
			if got := !errors.Is(err, ledger.ErrBadOwner); got != tt.ok || (tt.ok && err != nil) {
				t.Errorf("owner %q: %v, want accepted %v", tt.owner, err, tt.ok)
			}
		})
	}
}
