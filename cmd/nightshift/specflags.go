package main

import (
	"reflect"

	"github.com/nightshift-dev/nightshift/runspec"
)

// doc is a flag's doc line, from the run spec's table: the one place it
// is written (runspec.Table).
func doc(flag string) string {
	o, ok := runspec.ByFlag(flag)
	if !ok {
		panic("cmd/nightshift: --" + flag + " has no row in runspec.Table")
	}
	return o.Doc
}

// flagSpec is the run spec the flags of run and batch say, their
// defaults included: the flags are bound to its fields (addRunFlags), so
// this is a copy that shares no variable with the flags, and --no-claims
// said the spec's way. Process flags (--dir, --events, --state-dir, ...)
// are not in it.
func (f *runFlags) flagSpec() runspec.Spec {
	s := f.spec.Clone()
	if f.noClaims {
		off := false
		s.Claims = &off // --no-claims is claims: false; not given, the task's own
	}
	return s
}

// overlay lays the flags' spec over a task's, row by row of the table: a
// field the task leaves unset takes the flag's value (its default, when
// not given); a field both set takes the flag's when wins says so (run:
// every flag given on the command line); a list flag (--check, --approve,
// --env) adds to the task's own list.
func overlay(task *runspec.Spec, flags runspec.Spec, wins func(flag string) bool) {
	for _, o := range runspec.Table {
		if o.Field == "" || o.Flag == "" {
			continue
		}
		dst, src := o.Value(task), o.Value(&flags)
		switch {
		case dst.Kind() == reflect.Slice:
			merged := reflect.AppendSlice(reflect.MakeSlice(dst.Type(), 0, dst.Len()+src.Len()), dst)
			dst.Set(reflect.AppendSlice(merged, src))
		case dst.IsZero() || wins(o.Flag):
			if src.Kind() == reflect.Pointer && !src.IsNil() {
				// A copy: the task's spec must not share the flag's
				// variable.
				cp := reflect.New(src.Type().Elem())
				cp.Elem().Set(src.Elem())
				src = cp
			}
			dst.Set(src)
		}
	}
}
