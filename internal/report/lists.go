package report

import (
	"reflect"
	"strings"
)

// fillLists makes every nil list and map in v (a pointer) empty, so that
// the JSON writes [] and {} for "none", never null: "nothing" is an
// answer a script can read without a special case. Fields the JSON
// leaves out when empty (omitempty) stay as they are, and so do
// unexported ones.
func fillLists(v any) { fill(reflect.ValueOf(v)) }

func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			fill(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || strings.Contains(f.Tag.Get("json"), ",omitempty") {
				continue
			}
			fill(v.Field(i))
		}
	case reflect.Slice:
		if v.IsNil() {
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		for i := range v.Len() {
			fill(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
	}
}
