package gate

import (
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/tool"
)

func TestPolicyDecide(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		tool  string
		class tool.Class
		want  Decision
	}{
		{"by default a read is allowed", nil, "read_file", tool.Read, Allow},
		{"by default a write is allowed", nil, "write_file", tool.Write, Allow},
		{"by default a command asks", nil, "run_command", tool.Danger, Ask},
		{"a class rule changes its class", []string{"write=ask"}, "edit_file", tool.Write, Ask},
		{"a class rule leaves the other classes alone", []string{"write=deny"}, "read_file", tool.Read, Allow},
		{"a name rule beats its class rule", []string{"danger=allow", "run_command=deny"}, "run_command", tool.Danger, Deny},
		{"a name rule beats a later class rule", []string{"run_command=deny", "danger=allow"}, "run_command", tool.Danger, Deny},
		{"a later rule for the same key wins", []string{"danger=deny", "danger=allow"}, "run_command", tool.Danger, Allow},
		{"a later rule in one spec wins", []string{"danger=deny,danger=allow"}, "run_command", tool.Danger, Allow},
		{"a name rule touches only that tool", []string{"run_command=deny"}, "deploy", tool.Danger, Ask},
		{"spaces and capitals in decisions are accepted", []string{" danger = ALLOW , "}, "x", tool.Danger, Allow},
		{"an unknown class asks", nil, "x", tool.Class("weird"), Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePolicy(tt.specs...)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Decide(tt.tool, tt.class); got != tt.want {
				t.Errorf("Decide(%s, %s) = %s, want %s", tt.tool, tt.class, got, tt.want)
			}
		})
	}
}

func TestZeroPolicyIsTheDefault(t *testing.T) {
	var zero Policy
	def, err := ParsePolicy(DefaultSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []tool.Class{tool.Read, tool.Write, tool.Danger} {
		if zero.Decide("t", c) != def.Decide("t", c) {
			t.Errorf("zero policy decides %s for %s; the default decides %s", zero.Decide("t", c), c, def.Decide("t", c))
		}
	}
	if zero.String() != DefaultSpec {
		t.Errorf("zero policy String() = %q, want %q", zero.String(), DefaultSpec)
	}
}

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct {
		name, spec, wantIn string
	}{
		{"a rule without = says what to write", "danger", "want NAME=allow|ask|deny"},
		{"a rule without a name says what to write", "=allow", "want NAME=allow|ask|deny"},
		{"an unknown decision names the three", "danger=maybe", `"maybe" is not a decision; want allow, ask or deny`},
		{"a name that is no tool name is refused", "rm -rf=allow", "neither a class"},
		{"an empty spec is refused with an example", "", "the rule is empty; want NAME=allow|ask|deny"},
		{"a spec of blanks is refused", "  ", "the rule is empty"},
		{"a spec of commas is refused", " , ", "the rule is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePolicy(tt.spec)
			if err == nil {
				t.Fatalf("ParsePolicy(%q) = nil error", tt.spec)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not contain %q", err, tt.wantIn)
			}
		})
	}
}

func TestPolicyStringRoundTrips(t *testing.T) {
	p, err := ParsePolicy("danger=deny,write=ask", "run_command=allow,deploy=deny")
	if err != nil {
		t.Fatal(err)
	}
	want := "read=allow,write=ask,danger=deny,deploy=deny,run_command=allow"
	if p.String() != want {
		t.Errorf("String() = %q, want %q", p.String(), want)
	}
	var q Policy
	if err := q.UnmarshalText([]byte(p.String())); err != nil {
		t.Fatal(err)
	}
	if q.String() != want {
		t.Errorf("after a round trip String() = %q, want %q", q.String(), want)
	}
}
