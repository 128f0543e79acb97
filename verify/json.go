package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// JSON passes when the file at path parses as JSON and, when schema is
// not nil, validates against it.
func JSON(path string, schema *jsonschema.Resolved) Rule {
	path = cleanPath(path)
	if schema == nil {
		return jsonRule("json:"+path, path, nil, "")
	}
	return jsonRule("json:"+path+":(schema)", path, schema, "the schema")
}

// jsonRule builds json:PATH (the file parses as JSON) and, with a schema,
// json:PATH:SCHEMA (it also validates against the schema).
func jsonRule(spec, path string, schema *jsonschema.Resolved, schemaName string) Rule {
	return &fileRule{spec: spec, name: "json", path: path, test: func(b []byte) string {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return "invalid JSON: " + err.Error()
		}
		if schema == nil {
			return ""
		}
		if err := schema.Validate(v); err != nil {
			return fmt.Sprintf("does not match %s: %v", schemaName, err)
		}
		return ""
	}}
}

// loadSchema reads and resolves a JSON Schema file at parse time, so that a
// missing or broken schema is a usage error before the run, not a FAIL
// after it. Remote $refs are refused: a check must not need the network.
func loadSchema(baseDir, name string) (*jsonschema.Resolved, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, fmt.Errorf("SCHEMA is empty")
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(baseDir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("schema %s: not a JSON Schema: %v", name, err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %v", name, err)
	}
	return resolved, nil
}

// ResolveSchema resolves a JSON Schema's content, as LoadSchema does a
// file's: for a schema kept by its content (a night task's output_schema,
// read when the task was added), never read from a path again.
func ResolveSchema(data []byte) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %v", err)
	}
	return s.Resolve(nil)
}

// LoadSchema reads and resolves the JSON Schema file name, relative to
// baseDir unless absolute, as the json:PATH:SCHEMA rule does: a missing
// or broken schema is an error before the run, and remote $refs are
// refused, since a check must not need the network.
func LoadSchema(baseDir, name string) (*jsonschema.Resolved, error) {
	return loadSchema(baseDir, name)
}
