package proxy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/llm"
	"github.com/nightshift-dev/nightshift/llm/scripted"
)

// The kinds of fault, by the names a schedule's rate: and --fault KIND=RATE
// use. A status (any of 400-599) is a kind too: 429, 529 and 500 are the
// usual ones.
const (
	// KindReset resets the connection before any header: the request is
	// not forwarded.
	KindReset = "reset"
	// KindResetAfterHeaders forwards the request, sends the upstream's
	// status and headers, and resets the connection before the body.
	KindResetAfterHeaders = "reset_after_headers"
	// KindCut forwards the request and cuts the reply mid-way: a stream
	// after its first content event, a body after half its bytes; then
	// the connection is reset.
	KindCut = "cut"
	// KindStall stalls the reply: a stream after its first content
	// event, a reply that does not stream before the request is even
	// forwarded; nothing more comes until the client gives up.
	KindStall = "stall"
	// KindTruncate cuts the real answer to half of its content, as
	// max_tokens cuts one, with its stop reason set: Anthropic's
	// "max_tokens", OpenAI's "length".
	KindTruncate = "truncate"
	// KindEmpty makes the real answer empty: no content, stop end_turn
	// (OpenAI: finish_reason stop).
	KindEmpty = "empty"
	// KindBrokenJSON cuts each tool call's input JSON at its middle.
	KindBrokenJSON = "broken_json"
	// KindUnknownTool renames each tool call to a tool the request does
	// not offer.
	KindUnknownTool = "unknown_tool"
)

// namedKinds are the kinds that are not statuses, in the order a rate
// schedule's draw walks them (after the statuses, in ascending order).
var namedKinds = []string{KindReset, KindResetAfterHeaders, KindCut, KindStall, KindTruncate, KindEmpty, KindBrokenJSON, KindUnknownTool}

// Kinds returns the fault kinds' names, for messages: the usual statuses
// and the named kinds.
func Kinds() []string { return append([]string{"429", "529", "500"}, namedKinds...) }

// Fault is one fault injected into one exchange. In YAML it is a kind's
// name (429, cut, empty, ...) or a mapping in the scenario format's fault
// vocabulary (docs/scenarios.md): status, headers and error for an error
// reply; drop for a reply cut mid-way; delay to wait before forwarding;
// stop: max_tokens, empty and raw_input for the answer's content; and the
// proxy's own reset, stall, broken_json, tool_name and unknown_tool. Exactly
// one of them, except that delay may come with any.
type Fault struct {
	// Status answers with this error status (400-599) in the wire's
	// format, without forwarding the request.
	Status int `yaml:"status"`
	// Headers are sent with the error: retry-after, retry-after-ms, ...
	// A 429 given as a kind has retry-after: "1".
	Headers map[string]string `yaml:"headers"`
	// Error is the error's body; its type and message default from the
	// status, in the wire's vocabulary, as a scenario's do.
	Error *scripted.ErrorBody `yaml:"error"`
	// Reset is "before_headers" or "after_headers": the connection is
	// reset there.
	Reset string `yaml:"reset"`
	// Drop cuts the reply mid-way (kind cut).
	Drop bool `yaml:"drop"`
	// Delay is waited before the request is forwarded.
	Delay time.Duration `yaml:"delay"`
	// Stall stalls the reply (kind stall); see Stall.For.
	Stall Stall `yaml:"stall"`
	// Stop: max_tokens truncates the answer (kind truncate).
	Stop llm.StopReason `yaml:"stop"`
	// Empty empties the answer (kind empty).
	Empty bool `yaml:"empty"`
	// RawInput replaces each tool call's input with this text, verbatim.
	RawInput string `yaml:"raw_input"`
	// BrokenJSON cuts each tool call's input at its middle (kind
	// broken_json).
	BrokenJSON bool `yaml:"broken_json"`
	// ToolName renames each tool call to this name.
	ToolName string `yaml:"tool_name"`
	// UnknownTool renames each tool call to one the request does not
	// offer (kind unknown_tool).
	UnknownTool bool `yaml:"unknown_tool"`

	// kind is the name the fault was given by, or the name of what it
	// does.
	kind string
}

// Stall is how long a stall lasts: true (or a kind's stall) until the
// client gives up, a duration for that long, after which the reply goes on.
type Stall struct {
	// On is set for any stall.
	On bool
	// For is how long; zero is until the client gives up.
	For time.Duration
}

// UnmarshalYAML accepts true, false, or a duration such as 30s.
func (s *Stall) UnmarshalYAML(n *yaml.Node) error {
	var b bool
	if err := n.Decode(&b); err == nil {
		*s = Stall{On: b}
		return nil
	}
	var d time.Duration
	if err := n.Decode(&d); err != nil || d <= 0 {
		return fmt.Errorf("line %d: stall: want true or a positive duration such as 30s, got %q", n.Line, n.Value)
	}
	*s = Stall{On: true, For: d}
	return nil
}

// UnmarshalYAML accepts a kind's name or a mapping.
func (f *Fault) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		k, err := FaultOf(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		*f = *k
		return nil
	}
	type plain Fault
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*f = Fault(p)
	if err := f.validate(); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	return nil
}

// FaultOf returns the fault a kind names: a status (400-599), 5xx (500),
// or one of the named kinds.
func FaultOf(kind string) (*Fault, error) {
	k := strings.TrimSpace(kind)
	if k == "5xx" {
		k = "500"
	}
	if n, err := strconv.Atoi(k); err == nil {
		if n < 400 || n > 599 {
			return nil, fmt.Errorf("fault %q: a status fault is 400-599", kind)
		}
		f := &Fault{Status: n, kind: k}
		if n == 429 {
			f.Headers = map[string]string{"retry-after": "1"}
		}
		return f, nil
	}
	f := &Fault{kind: k}
	switch k {
	case KindReset:
		f.Reset = "before_headers"
	case KindResetAfterHeaders:
		f.Reset = "after_headers"
	case KindCut:
		f.Drop = true
	case KindStall:
		f.Stall = Stall{On: true}
	case KindTruncate:
		f.Stop = llm.MaxTokens
	case KindEmpty:
		f.Empty = true
	case KindBrokenJSON:
		f.BrokenJSON = true
	case KindUnknownTool:
		f.UnknownTool = true
	default:
		return nil, fmt.Errorf("unknown fault %q: want a status (429, 529, 500, ...) or one of %s", kind, strings.Join(namedKinds, ", "))
	}
	return f, nil
}

// validate checks a fault given as a mapping and names its kind.
func (f *Fault) validate() error {
	// The fields given, by their names, and the kind each makes.
	var fields, kinds []string
	add := func(on bool, field, kind string) {
		if on {
			fields, kinds = append(fields, field), append(kinds, kind)
		}
	}
	add(f.Status != 0, "status", strconv.Itoa(f.Status))
	add(f.Reset == "before_headers", "reset", KindReset)
	add(f.Reset == "after_headers", "reset", KindResetAfterHeaders)
	add(f.Drop, "drop", KindCut)
	add(f.Stall.On, "stall", KindStall)
	add(f.Stop != "", "stop", KindTruncate)
	add(f.Empty, "empty", KindEmpty)
	add(f.RawInput != "", "raw_input", "raw_input")
	add(f.BrokenJSON, "broken_json", KindBrokenJSON)
	add(f.ToolName != "", "tool_name", "tool_name")
	add(f.UnknownTool, "unknown_tool", KindUnknownTool)
	switch {
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Errorf("status %d is not an error status (400-599)", f.Status)
	case f.Status == 0 && (len(f.Headers) > 0 || f.Error != nil):
		return errors.New("headers and error need a status")
	case f.Reset != "" && f.Reset != "before_headers" && f.Reset != "after_headers":
		return fmt.Errorf("reset: %q: want before_headers or after_headers", f.Reset)
	case f.Stop != "" && f.Stop != llm.MaxTokens:
		return fmt.Errorf("stop: %q: the proxy truncates with stop: max_tokens", f.Stop)
	case f.Delay < 0:
		return fmt.Errorf("negative delay %v", f.Delay)
	case len(fields) > 1:
		return fmt.Errorf("a fault is one of status, reset, drop, stall, stop, empty, raw_input, broken_json, tool_name, unknown_tool; this one has %s", strings.Join(fields, " and "))
	case len(fields) == 0 && f.Delay == 0:
		return errors.New("a fault needs one of status, reset, drop, stall, stop, empty, raw_input, broken_json, tool_name, unknown_tool or delay")
	case len(fields) == 0:
		f.kind = "delay"
	default:
		f.kind = kinds[0]
	}
	return nil
}

// Kind names the fault: the kind it was given as, or what it does.
func (f *Fault) Kind() string { return f.kind }

// content reports whether the fault rewrites the answer's content.
func (f *Fault) content() bool {
	return f.Stop != "" || f.Empty || f.RawInput != "" || f.BrokenJSON || f.ToolName != "" || f.UnknownTool
}
