package gate

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
	"github.com/nightshift-dev/nightshift/tool"
)

// Decision is what the policy says about a tool call.
type Decision string

// The decisions of a policy. A Verdict carries Allow, Deny or Refuse: the
// gate resolves Ask by asking.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// The decisions the gate records beside a policy's.
const (
	// Refuse: the policy allowed the call, but the run could not prepare
	// for it (see Gate.CheckThen), so it did not run.
	Refuse Decision = "refuse"
	// Reject: the call could not run at all (see Gate.Reject).
	Reject Decision = "reject"
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
	// rules holds each name rule as it was written, for Validate's
	// message.
	rules map[string]string
}

// toolName is what a tool name may look like in a rule.
var toolName = lazyregexp.New(`^[A-Za-z0-9_.-]+$`)

// ParsePolicy builds a policy from rules such as "read=allow,write=allow,
// danger=ask" and "run_command=deny", on top of the default policy. Each
// spec holds comma-separated rules, as one --approve flag or one entry of
// a task file does; a later rule for the same key wins, and a rule for a
// tool name beats the rule for its class.
func ParsePolicy(specs ...string) (Policy, error) {
	p := Policy{classes: maps.Clone(defaults), names: map[string]Decision{}, rules: map[string]string{}}
	for _, spec := range specs {
		if strings.Trim(spec, " \t\n,") == "" {
			// An --approve or approve entry with no rule decides nothing:
			// it is a value lost on the way (an unset variable), not a
			// rule. A stray comma beside rules is forgiven.
			return Policy{}, &RuleError{Spec: spec, Problem: "the rule is empty; " + ruleForm}
		}
		for rule := range strings.SplitSeq(spec, ",") {
			rule = strings.TrimSpace(rule)
			if rule == "" {
				continue
			}
			key, value, ok := strings.Cut(rule, "=")
			key, value = strings.TrimSpace(key), strings.ToLower(strings.TrimSpace(value))
			if !ok || key == "" {
				return Policy{}, &RuleError{Spec: spec, Rule: rule, Problem: ruleForm}
			}
			d := Decision(value)
			if d != Allow && d != Ask && d != Deny {
				return Policy{}, &RuleError{Spec: spec, Rule: rule, Problem: fmt.Sprintf("%q is not a decision; want allow, ask or deny", value)}
			}
			if c := tool.Class(key); c.Valid() {
				p.classes[c] = d
				continue
			}
			if !toolName.MatchString(key) {
				return Policy{}, &RuleError{Spec: spec, Rule: rule, Problem: fmt.Sprintf("%q is neither a class (read, write, danger) nor a tool name", key)}
			}
			p.names[key] = d
			p.rules[key] = rule
		}
	}
	return p, nil
}

// ruleForm is what an approval rule looks like, with an example.
const ruleForm = "want NAME=allow|ask|deny, where NAME is read, write, danger or a tool name, for example danger=ask or run_command=deny"

// RuleError is a spec ParsePolicy cannot read: one without a rule, or a
// rule that is not NAME=allow|ask|deny. A
// caller that knows where the spec came from (a flag, a file's key)
// names it and shows Problem.
type RuleError struct {
	// Spec is the spec as given, for example "danger=maybe,write=deny".
	Spec string
	// Rule is the rule of Spec at fault; empty when the rule is empty.
	Rule string
	// Problem says what is wrong and what a rule looks like.
	Problem string
}

// CheckSpec checks one spec as ParsePolicy reads it, and returns the
// problem alone (a *RuleError's Problem, with the rule at fault), for a
// caller that names the spec's source: `--approve "": the rule is empty; …`.
func CheckSpec(spec string) error {
	_, err := ParsePolicy(spec)
	var re *RuleError
	if errors.As(err, &re) {
		if re.Rule != "" && re.Rule != strings.TrimSpace(spec) {
			return fmt.Errorf("rule %q: %s", re.Rule, re.Problem)
		}
		return errors.New(re.Problem)
	}
	return err
}

func (e *RuleError) Error() string {
	if e.Rule == "" {
		return fmt.Sprintf("gate: approval rules %q: %s", e.Spec, e.Problem)
	}
	return fmt.Sprintf("gate: approval rule %q: %s", e.Rule, e.Problem)
}

// UnknownToolError is a policy naming a tool that the run does not have:
// a misspelt name (run_comand=deny) would otherwise decide nothing, and
// the class rule would let the tool run.
type UnknownToolError struct {
	// Rules are the rules, as written, that name no tool of the run.
	Rules []string
	// Tools are the run's tools, sorted.
	Tools []string
}

func (e *UnknownToolError) Error() string {
	noun := "rule names"
	if len(e.Rules) > 1 {
		noun = "rules name"
	}
	quoted := make([]string, len(e.Rules))
	for i, r := range e.Rules {
		quoted[i] = fmt.Sprintf("%q", r)
	}
	return fmt.Sprintf("gate: the approval %s %s no tool of this run; the tools are %s, and the classes read, write and danger",
		noun, strings.Join(quoted, ", "), strings.Join(e.Tools, ", "))
}

// Validate checks that every tool the policy names is among tools, the
// names of the run's final tool set (built-in, MCP, ...): call it once
// every source of tools has listed its own. The error is an
// *UnknownToolError naming the rules and the tools; a caller treats it as
// a usage error. Class names are checked by ParsePolicy already.
func (p Policy) Validate(tools []string) error {
	var bad []string
	for _, n := range slices.Sorted(maps.Keys(p.names)) {
		if !slices.Contains(tools, n) {
			bad = append(bad, cmpOr(p.rules[n], n+"="+string(p.names[n])))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	known := slices.Clone(tools)
	slices.Sort(known)
	return &UnknownToolError{Rules: bad, Tools: known}
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
