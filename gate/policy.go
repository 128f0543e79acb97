package gate

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/tool"
)

// Decision is what the policy says about a tool call.
type Decision string

// The decisions. A Verdict only ever carries Allow or Deny: the gate
// resolves Ask by asking.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// DefaultSpec is the policy when nobody says otherwise: reads and writes
// run (writes are journaled and rolled back), commands wait for a person.
const DefaultSpec = "read=allow,write=allow,danger=ask"

// defaults is DefaultSpec as a table.
var defaults = map[tool.Class]Decision{tool.Read: Allow, tool.Write: Allow, tool.Danger: Ask}

// Policy decides allow, ask or deny for a tool call, by the tool's name
// first and then by its class. The zero Policy is the default policy.
type Policy struct {
	classes map[tool.Class]Decision
	names   map[string]Decision
}

// toolName is what a tool name may look like in a rule.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ParsePolicy builds a policy from rules such as "read=allow,write=allow,
// danger=ask" and "run_command=deny", on top of the default policy. Each
// spec holds comma-separated rules, as one --approve flag or one entry of
// a task file does; a later rule for the same key wins, and a rule for a
// tool name beats the rule for its class.
func ParsePolicy(specs ...string) (Policy, error) {
	p := Policy{classes: maps.Clone(defaults), names: map[string]Decision{}}
	for _, spec := range specs {
		for rule := range strings.SplitSeq(spec, ",") {
			rule = strings.TrimSpace(rule)
			if rule == "" {
				continue
			}
			key, value, ok := strings.Cut(rule, "=")
			key, value = strings.TrimSpace(key), strings.ToLower(strings.TrimSpace(value))
			if !ok || key == "" {
				return Policy{}, fmt.Errorf("gate: approval rule %q: want NAME=allow|ask|deny, where NAME is read, write, danger or a tool name, for example danger=ask or run_command=deny", rule)
			}
			d := Decision(value)
			if d != Allow && d != Ask && d != Deny {
				return Policy{}, fmt.Errorf("gate: approval rule %q: %q is not a decision; want allow, ask or deny", rule, value)
			}
			if c := tool.Class(key); c.Valid() {
				p.classes[c] = d
				continue
			}
			if !toolName.MatchString(key) {
				return Policy{}, fmt.Errorf("gate: approval rule %q: %q is neither a class (read, write, danger) nor a tool name", rule, key)
			}
			p.names[key] = d
		}
	}
	return p, nil
}

// Decide returns the decision for the tool name of class c: the rule for
// the name if there is one, else the rule for the class. A class the
// policy does not know asks, which without a person is a deny.
func (p Policy) Decide(name string, c tool.Class) Decision {
	if d, ok := p.names[name]; ok {
		return d
	}
	if d, ok := p.classes[c]; ok {
		return d
	}
	if d, ok := defaults[c]; ok {
		return d
	}
	return Ask
}

// Rule returns the rule that decides for name and c, as a person would
// write it, for example "danger=ask" or "run_command=deny".
func (p Policy) Rule(name string, c tool.Class) string {
	if d, ok := p.names[name]; ok {
		return name + "=" + string(d)
	}
	return string(c) + "=" + string(p.Decide(name, c))
}

// String returns the policy in the form ParsePolicy reads: the three
// classes, then the tool rules by name.
func (p Policy) String() string {
	parts := make([]string, 0, 3+len(p.names))
	for _, c := range []tool.Class{tool.Read, tool.Write, tool.Danger} {
		parts = append(parts, string(c)+"="+string(p.Decide("", c)))
	}
	for _, n := range slices.Sorted(maps.Keys(p.names)) {
		parts = append(parts, n+"="+string(p.names[n]))
	}
	return strings.Join(parts, ",")
}

// UnmarshalText reads a policy from one spec, so that a task file's
// `approve: "danger=allow"` decodes into a Policy.
func (p *Policy) UnmarshalText(b []byte) error {
	q, err := ParsePolicy(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// MarshalText writes the policy as String does.
func (p Policy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }
