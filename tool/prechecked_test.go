package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// prechecked is a fake whose schema its tests vouch for.
type prechecked struct{ fake }

func (prechecked) SchemaPrechecked() {}

func TestAPrecheckedToolsSchemaIsCompiledAtItsFirstCall(t *testing.T) {
	// A schema that does not compile (minLength must be a number): a
	// tool that is not Prechecked is refused by NewSet, one that is is
	// taken, and its broken schema found at its first call.
	broken := `{"type":"object","properties":{"path":{"type":"string","minLength":"x"}}}`
	if _, err := NewSet(fake{name: "plain", class: Read, schema: broken}); err == nil {
		t.Fatal("NewSet took a tool with a broken schema")
	}
	s, err := NewSet(prechecked{fake{name: "vouched", class: Read, schema: broken}}, prechecked{named("good")})
	if err != nil {
		t.Fatalf("NewSet compiled a Prechecked tool's schema: %v", err)
	}
	res := s.Call(context.Background(), "vouched", json.RawMessage(`{"path":"a"}`))
	if !res.IsError || !strings.Contains(res.Content, "input schema is broken") {
		t.Errorf("a call of a Prechecked tool with a broken schema: %+v", res)
	}
	// The good one's schema is enforced as any other's.
	if res := s.Call(context.Background(), "good", json.RawMessage(`{}`)); !res.IsError || !strings.Contains(res.Content, "does not match the tool's schema") {
		t.Errorf("a call without the required path: %+v", res)
	}
	if res := s.Call(context.Background(), "good", json.RawMessage(`{"path":"a"}`)); res.IsError {
		t.Errorf("a good call: %+v", res)
	}
	if err := CheckSchema(prechecked{fake{name: "vouched", class: Read, schema: broken}}); err == nil {
		t.Error("CheckSchema took a broken schema")
	}
}
