package ledger_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nightshift-dev/nightshift/ledger"
)

// TestSetup: a night's setup is kept per night, the latest recorded wins,
// and a night nobody recorded one for says ErrNotFound; on every store.
func TestSetup(t *testing.T) {
	for name, dsn := range stores(t) {
		t.Run(name, func(t *testing.T) {
			l := open(t, dsn(t))
			n := night(t, l, "setup")
			if _, err := l.NightSetup(ctx(), n.ID); !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("before any setup: %v, want ErrNotFound", err)
			}
			first := ledger.Setup{Roles: map[ledger.Role]ledger.RoleSetup{ledger.Builder: {Models: []string{"b1"}, Ceiling: 6}}}
			want := ledger.Setup{Zone: "Europe/Berlin", BudgetTokens: 5000, WIP: 3, Roles: map[ledger.Role]ledger.RoleSetup{
				ledger.Proposer: {Models: []string{"idea"}, Ceiling: 8},
				ledger.Builder:  {Models: []string{"b1", "b2"}, Ceiling: 14},
			}, Models: map[string]ledger.ModelSetup{"b1": {Provider: "anthropic", Model: "claude-sonnet-5-5", KeyEnv: "MAKER_KEY"}, "idea": {Provider: "scripted"}},
				Pipeline: "/srv/night/pipeline.yaml", WorkDir: "/srv/night/work", StateBase: "/srv/state"}
			for _, s := range []ledger.Setup{first, want} {
				if err := l.SetSetup(ctx(), n.ID, s, t0); err != nil {
					t.Fatal(err)
				}
			}
			got, err := l.NightSetup(ctx(), n.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("setup (-want +got):\n%s", diff)
			}
			if got.Location().String() != "Europe/Berlin" || (ledger.Setup{}).Location().String() != "UTC" {
				t.Errorf("locations %s, %s", got.Location(), (ledger.Setup{}).Location())
			}
		})
	}
}
