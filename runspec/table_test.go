package runspec_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nightshift-dev/nightshift/runspec"
)

// TestTheTableNamesEveryFieldOnce walks Spec's fields and the table
// together: every field has one row, every row's key is the field's yaml
// tag, and no flag or key is named twice. A group embedded under a key
// of its own (breaker: {failures, cool}) has the key's row, and its
// fields rows of their own without a key: the key's row sets them.
func TestTheTableNamesEveryFieldOnce(t *testing.T) {
	fields := map[string]reflect.StructField{}
	nested := map[string]bool{}
	var walk func(reflect.Type, bool)
	walk = func(rt reflect.Type, under bool) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			if f.Anonymous {
				if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
					fields[f.Name] = f
					walk(f.Type, true)
					continue
				}
				walk(f.Type, under)
				continue
			}
			fields[f.Name] = f
			nested[f.Name] = under
		}
	}
	walk(reflect.TypeOf(runspec.Spec{}), false)
	rows := map[string]bool{}
	flags, keys, roleKeys := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, o := range runspec.Table {
		if o.Doc == "" {
			t.Errorf("row %+v has no doc line", o)
		}
		for _, n := range []struct {
			seen map[string]bool
			v    string
		}{{flags, o.Flag}, {keys, o.Key}, {roleKeys, o.RoleKey}} {
			if n.v != "" && n.seen[n.v] {
				t.Errorf("%q is named by two rows", n.v)
			}
			n.seen[n.v] = true
		}
		if o.Group == runspec.ProcessGroup {
			if o.Field != "" {
				t.Errorf("process row --%s names field %s", o.Flag, o.Field)
			}
			continue
		}
		f, ok := fields[o.Field]
		if !ok {
			t.Errorf("row names field %s, which Spec does not have", o.Field)
			continue
		}
		rows[o.Field] = true
		yamlKey, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if yamlKey == "-" || nested[o.Field] {
			yamlKey = ""
		}
		if yamlKey != o.Key {
			t.Errorf("field %s: yaml key %q, table key %q", o.Field, yamlKey, o.Key)
		}
		if j, _, _ := strings.Cut(f.Tag.Get("json"), ","); j == "" || j == "-" {
			t.Errorf("field %s has no json name: a checkpoint would lose it", o.Field)
		}
		if o.Flag == "" && o.Key == "" && o.RoleKey == "" {
			t.Errorf("field %s can be set from nowhere", o.Field)
		}
	}
	for name := range fields {
		if !rows[name] {
			t.Errorf("Spec.%s has no row in Table", name)
		}
	}
}

// TestARowReachesItsField sets every field through the table and reads
// it back by name.
func TestARowReachesItsField(t *testing.T) {
	var s runspec.Spec
	s.MaxSteps = 7
	o, ok := runspec.ByKey("max_steps")
	if !ok || o.Value(&s).Interface() != 7 {
		t.Fatalf("max_steps row = %+v, %v", o, ok)
	}
	o, _ = runspec.ByRoleKey("judge")
	if o.Field != "JudgeModel" || o.Flag != "judge-model" || o.Key != "judge_model" {
		t.Errorf("a role's judge is %+v, want the judge model", o)
	}
}
