package wholenum

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Check returns an error naming the first integer setting of v's type (a
// struct, through pointers, maps, slices and inlined structs) that data,
// one YAML document, gives a number with a fraction for; nil when there
// is none, or when data does not parse (the decoder says why). A type
// that reads itself (yaml.Unmarshaler) is left to itself.
func Check(data []byte, v any) error {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	return walk(doc.Content[0], reflect.TypeOf(v), nil)
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

func walk(n *yaml.Node, t reflect.Type, path []string) error {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		fields := map[string]reflect.Type{}
		collect(t, fields)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if ft, ok := fields[n.Content[i].Value]; ok {
				if err := walk(n.Content[i+1], ft, append(path, n.Content[i].Value)); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := walk(n.Content[i+1], t.Elem(), append(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for _, item := range n.Content {
			if err := walk(item, t.Elem(), path); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && !whole(n.Value) {
			return fmt.Errorf("line %d: %s: %s is not a whole number: give an integer", n.Line, strings.Join(path, "."), n.Value)
		}
	}
	return nil
}

// collect maps the YAML keys of struct t's fields to their types, the
// fields of inlined structs included.
func collect(t reflect.Type, fields map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collect(ft, fields)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name) // the decoder's default key
		}
		fields[name] = f.Type
	}
}

// whole reports whether a YAML float is a whole number (2.0, 1e3).
func whole(s string) bool {
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return err == nil && !math.IsInf(f, 0) && f == math.Trunc(f)
}
