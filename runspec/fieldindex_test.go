package runspec

import (
	"reflect"
	"slices"
	"testing"
)

// TestTheFieldIndexIsFieldByName holds the cached index paths Value
// uses to what reflect's FieldByName finds for every option's field.
func TestTheFieldIndexIsFieldByName(t *testing.T) {
	typ := reflect.TypeFor[Spec]()
	for _, o := range Table {
		if o.Field == "" {
			continue
		}
		f, ok := typ.FieldByName(o.Field)
		if !ok {
			t.Errorf("%s: Spec has no field %s", o.Name(), o.Field)
			continue
		}
		if got := fieldIndex()[o.Field]; !slices.Equal(got, f.Index) {
			t.Errorf("%s: index %v, FieldByName's %v", o.Name(), got, f.Index)
		}
	}
}
