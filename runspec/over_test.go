package runspec_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/nightshift-dev/nightshift/runspec"
)

// TestASpecOverAnotherLaysEveryFieldOfTheTable: Over walks the table, so
// that every option a task sets reaches its run over a batch's (an option
// added to the table is laid without a line more); a field the task
// leaves unset keeps the base's, lists add, switches only turn on.
func TestASpecOverAnotherLaysEveryFieldOfTheTable(t *testing.T) {
	for _, o := range runspec.Table {
		if o.Field == "" || o.Field == "Breaker" {
			continue
		}
		t.Run(o.Field, func(t *testing.T) {
			var top, base runspec.Spec
			set(o.Value(&top), "top")
			set(o.Value(&base), "base")
			out := top.Over(base)
			got := o.Value(&out)
			switch got.Kind() {
			case reflect.Bool:
				if !got.Bool() {
					t.Errorf("%s is off", o.Field)
				}
			case reflect.Slice:
				if got.Len() != 2 {
					t.Errorf("%s = %v, want base's and top's", o.Field, got.Interface())
				}
			case reflect.Map:
				if got.Len() != 2 {
					t.Errorf("%s = %v, want base's and top's", o.Field, got.Interface())
				}
			default:
				if !reflect.DeepEqual(got.Interface(), o.Value(&top).Interface()) {
					t.Errorf("%s = %v, want top's %v", o.Field, got.Interface(), o.Value(&top).Interface())
				}
			}
			var none runspec.Spec
			if kept := none.Over(base); !reflect.DeepEqual(o.Value(&kept).Interface(), o.Value(&base).Interface()) {
				t.Errorf("%s unset: %v, want base's %v", o.Field, o.Value(&kept).Interface(), o.Value(&base).Interface())
			}
		})
	}
	base := runspec.Spec{Gate: runspec.Gate{Approve: runspec.List{"danger=deny"}}}
	top := runspec.Spec{Gate: runspec.Gate{Approve: runspec.List{"danger=deny", "run_command=allow"}}}
	if out := top.Over(base); !slices.Equal(out.Approve, []string{"danger=deny", "run_command=allow"}) || len(base.Approve) != 1 {
		t.Errorf("approve %v (base %v): a rule both have is laid once, and base is not changed", out.Approve, base.Approve)
	}
}

// set gives v a value that is not zero, told apart by which.
func set(v reflect.Value, which string) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(which == "top")
	case reflect.String:
		v.SetString(which)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(len(which)))
	case reflect.Float64:
		v.SetFloat(float64(len(which)))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		set(p.Elem(), which)
		v.Set(p)
	case reflect.Slice:
		e := reflect.New(v.Type().Elem()).Elem()
		set(e, which)
		v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), e))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.ValueOf(which), reflect.New(v.Type().Elem()).Elem())
		v.Set(m)
	}
}
