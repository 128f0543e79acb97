package wholenum

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type minutes int

func (m *minutes) UnmarshalYAML(n *yaml.Node) error { *m = 1; return nil }

type inner struct {
	Budget int64 `yaml:"budget_tokens"`
	Rate   float64
}

type Base struct {
	Steps int `yaml:"max_steps"`
}

type spec struct {
	Base    `yaml:",inline"`
	Window  *int              `yaml:"context_window"`
	Roles   map[string]*inner `yaml:"roles"`
	List    []inner           `yaml:"list"`
	Timeout minutes           `yaml:"timeout"`
	Name    string            `yaml:"name"`
	Lower   uint
}

func TestAFractionForAnIntegerIsFoundWithItsLine(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"max_steps: 1.5\n", "line 1: max_steps: 1.5 is not a whole number"},
		{"name: x\ncontext_window: 0.5\n", "line 2: context_window: 0.5 is not a whole number"},
		{"roles:\n  builder: {budget_tokens: 2.5e3, rate: 0.5}\n  judge: {budget_tokens: 1.25}\n", "line 3: roles.judge.budget_tokens: 1.25 is not a whole number"},
		{"list:\n  - {budget_tokens: 3}\n  - {budget_tokens: 3.7}\n", "line 3: list.budget_tokens: 3.7 is not a whole number"},
		{"lower: 2.5\n", "line 1: lower: 2.5 is not a whole number"},
		{"max_steps: .inf\n", "max_steps: .inf is not a whole number"},
		{"a: &w 4.5\ncontext_window: *w\n", "context_window: 4.5 is not a whole number"},
	} {
		err := Check([]byte(tc.yaml), &spec{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

func TestWholeNumbersAndOtherSettingsPass(t *testing.T) {
	for _, y := range []string{
		"max_steps: 3\ncontext_window: 200000\n",
		"max_steps: 2.0\nroles: {b: {budget_tokens: 1e3, rate: 0.25}}\n",
		"timeout: 1.5\nname: '1.5'\n",
		"max_steps: [1.5]\n", // a type mismatch is the decoder's to say
		"",
		"max_steps: 1.5: :\n", // does not parse: the decoder's to say
	} {
		if err := Check([]byte(y), &spec{}); err != nil {
			t.Errorf("%q: %v", y, err)
		}
	}
}
