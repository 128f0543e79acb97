package runspec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nightshift-dev/nightshift/internal/lazyregexp"
)

// ErrEmpty is returned by DecodeYAML for a document with nothing in it.
var ErrEmpty = errors.New("the file is empty")

// DecodeYAML decodes a YAML (or JSON) document into v, refusing unknown
// keys, and says what went wrong in the terms of the file: the key, its
// line and the shape expected (`line 3: max_steps is "many": want a
// whole number`, `line 2: unknown key wpi; did you mean wip? (the keys:
// ...)`), never a Go type. A single string is taken where a list of
// strings is expected (List).
func DecodeYAML(data []byte, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return syntaxError(err)
	}
	if len(doc.Content) == 0 {
		return ErrEmpty
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) {
		return ErrEmpty
	}
	if err == nil {
		return nil
	}
	return Explain(err, &doc, reflect.TypeOf(v))
}

// syntaxError drops yaml's package prefix from a syntax error.
func syntaxError(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}

var (
	notFound   = lazyregexp.New(`^line (\d+): field (\S+) not found in type (\S+)$`)
	cannot     = lazyregexp.New("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
	lineAtHead = lazyregexp.New(`^line (\d+): (.*)$`)
)

// Explain rewrites a decoding error of yaml (v3) in the terms of the
// document doc, decoded into a value of type t: each of its lines names
// the key with its line and the shape expected. Other errors come back
// as they were, less yaml's package prefix.
func Explain(err error, doc *yaml.Node, t reflect.Type) error {
	var shape *shapeError
	if errors.As(err, &shape) {
		return errors.New(shape.explain(doc))
	}
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return syntaxError(err)
	}
	keys := keysByType(t)
	var lines []string
	for _, e := range te.Errors {
		lines = append(lines, explainOne(e, doc, keys))
	}
	return errors.New(strings.Join(lines, "; "))
}

func explainOne(e string, doc *yaml.Node, keys map[string][]string) string {
	if m := notFound.FindStringSubmatch(e); m != nil {
		line, _ := strconv.Atoi(m[1])
		known := keys[m[3]]
		msg := fmt.Sprintf("line %d: unknown key %s", line, m[2])
		if p := parentPath(doc, line); p != "" {
			msg += " in " + p
		}
		if near := nearest(m[2], known); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
		if len(known) > 0 {
			msg += fmt.Sprintf(" (the keys here: %s)", strings.Join(known, ", "))
		}
		return msg
	}
	if m := cannot.FindStringSubmatch(e); m != nil {
		line, _ := strconv.Atoi(m[1])
		path := pathAt(doc, line)
		got := m[3]
		if got == "" {
			got = map[string]string{"seq": "a list", "map": "a mapping"}[m[2]]
		} else {
			got = strconv.Quote(got)
		}
		return fmt.Sprintf("line %d: %s is %s: want %s", line, cmpOr(path, "the value"), cmpOr(got, "a "+m[2]), shapeOf(m[4]))
	}
	if m := lineAtHead.FindStringSubmatch(e); m != nil {
		return e
	}
	return e
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// shapeOf names the shape a Go type name stands for, as a person writes
// it in YAML.
func shapeOf(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]") || strings.HasSuffix(goType, ".List") || strings.HasSuffix(goType, ".Command"):
		return "a list"
	case strings.HasPrefix(goType, "map["):
		return "a mapping of keys to values"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"), goType == "*int":
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool", goType == "*bool":
		return "true or false"
	case goType == "string", strings.HasSuffix(goType, ".Role"), strings.HasSuffix(goType, ".Class"), strings.HasSuffix(goType, ".Kind"), strings.HasSuffix(goType, ".Scope"):
		return "a string"
	case strings.HasSuffix(goType, "Duration"):
		return "a duration such as 90m"
	}
	return "a mapping of keys"
}

// shapeError is a value of the wrong shape, found by a type's own
// UnmarshalYAML.
type shapeError struct {
	line  int
	col   int
	value string
	want  string
}

func (e *shapeError) Error() string {
	if e.value != "" {
		return fmt.Sprintf("line %d: %q: want %s", e.line, e.value, e.want)
	}
	return fmt.Sprintf("line %d: want %s", e.line, e.want)
}

func (e *shapeError) explain(doc *yaml.Node) string {
	path := cmpOr(valuePath(doc, e.line, e.col), "the value")
	if e.value != "" {
		return fmt.Sprintf("line %d: %s is %q: want %s", e.line, path, e.value, e.want)
	}
	return fmt.Sprintf("line %d: %s: want %s", e.line, path, e.want)
}

// pathAt is the dotted key path of the value on line (roles.builder.timeout),
// "" when no key of doc is on it.
func pathAt(doc *yaml.Node, line int) string {
	var best []string
	walk(doc, nil, func(path []string, key, val *yaml.Node) {
		if key.Line == line || (val.Line == line && val.Kind == yaml.ScalarNode) {
			best = slices.Clone(path)
		}
	})
	return strings.Join(best, ".")
}

// valuePath is the dotted key path of the value at line and col.
func valuePath(doc *yaml.Node, line, col int) string {
	var best []string
	walk(doc, nil, func(path []string, _, val *yaml.Node) {
		if val.Line == line && val.Column == col && best == nil {
			best = slices.Clone(path)
		}
	})
	return strings.Join(best, ".")
}

// parentPath is the dotted path of the mapping holding the key on line.
func parentPath(doc *yaml.Node, line int) string {
	var best []string
	walk(doc, nil, func(path []string, key, _ *yaml.Node) {
		if key.Line == line {
			best = slices.Clone(path[:len(path)-1])
		}
	})
	return strings.Join(best, ".")
}

// walk calls fn for each key of every mapping in n, with its path.
func walk(n *yaml.Node, path []string, fn func(path []string, key, val *yaml.Node)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walk(c, path, fn)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			walk(c, append(slices.Clone(path), strconv.Itoa(i+1)), fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := append(slices.Clone(path), k.Value)
			fn(p, k, v)
			walk(v, p, fn)
		}
	}
}

// KeyLines returns the line of each top-level key of a YAML mapping, for
// naming a key a check found wrong after decoding.
func KeyLines(data []byte) map[string]int {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	return MappingLines(doc.Content[0])
}

// MappingLines returns the line of each key of the mapping n.
func MappingLines(n *yaml.Node) map[string]int {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i].Line
	}
	return out
}

// KeyLister is a type whose YAML keys are fewer than its fields say (a
// pipeline role inlines a Spec, but takes only some of its keys): an
// unknown key's message lists YAMLKeys.
type KeyLister interface {
	YAMLKeys() []string
}

// keysByType maps the name yaml gives each struct type reachable from t
// ("night.Pipeline") to its keys, inlined structs' included.
func keysByType(t reflect.Type) map[string][]string {
	out := map[string][]string{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			if t.Kind() == reflect.Map {
				visit(t.Key())
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || out[t.String()] != nil {
			return
		}
		out[t.String()] = []string{}
		keys := structKeys(t, visit)
		if k, ok := reflect.New(t).Interface().(KeyLister); ok {
			keys = k.YAMLKeys()
		}
		out[t.String()] = keys
	}
	visit(t)
	return out
}

func structKeys(t reflect.Type, visit func(reflect.Type)) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if strings.Contains(opts, "inline") {
			keys = append(keys, structKeys(f.Type, visit)...)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys = append(keys, name)
		visit(f.Type)
	}
	return keys
}

// nearest is the key of known closest to k, when a typo away (at most
// two edits); "" otherwise.
func nearest(k string, known []string) string {
	best, bestD := "", 3
	for _, c := range known {
		if d := distance(k, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the edit distance of a and b (insertions, deletions,
// substitutions, and a swap of two neighbours).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
