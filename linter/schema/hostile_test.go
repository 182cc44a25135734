package schema_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// crdWith returns a CRD stream for kind Thing whose v1 schema is the JSON
// given (YAML flow style accepts JSON).
func crdWith(schemaJSON string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.org
spec:
  group: example.org
  names: {kind: Thing, plural: things}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: ` + schemaJSON + "\n"
}

func nested(depth int, leaf string) string {
	s := leaf
	for range depth {
		s = `{"type":"object","properties":{"a":` + s + `}}`
	}
	return s
}

func nestedAnyOf(depth int) string {
	s := `{"type":"string"}`
	for range depth {
		s = `{"anyOf":[` + s + `,` + s + `]}`
	}
	return `{"type":"object","properties":{"a":` + s + `}}`
}

// TestHostileSchemas checks each limit holds: a schema beyond it fails with
// limit.ErrExceeded, or is used without its costly part, and nothing panics.
func TestHostileSchemas(t *testing.T) {
	t.Parallel()
	enum := make([]string, 20001)
	for i := range enum {
		enum[i] = fmt.Sprintf("%q", fmt.Sprint(i))
	}
	cases := []struct {
		name, schema string
		err          error
		skipped      string
	}{
		{"deep", nested(50, `{"type":"string"}`), limit.ErrExceeded, ""}, // beyond MaxDepth 32 below
		{"huge enum", `{"type":"object","properties":{"a":{"type":"string","enum":[` + strings.Join(enum, ",") + `]}}}`, limit.ErrExceeded, ""},
		{"nested anyOf", nestedAnyOf(6), limit.ErrExceeded, ""},
		{"long pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"` + strings.Repeat("a", 5000) + `"}}}`, nil, "pattern longer than"},
		{"bad pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"(("}}}`, lschema.ErrInvalidSchema, ""},
		{"ref", `{"type":"object","properties":{"a":{"$ref":"#/definitions/x"}}}`, nil, "$ref"},
		{"patternProperties", `{"type":"object","patternProperties":{"((":{"type":"string"}}}`, nil, "patternProperties"},
		{"not a schema", `"string"`, lschema.ErrInvalidSchema, ""},
		{"wrong types", `{"type":5,"properties":[]}`, lschema.ErrInvalidSchema, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pkg, err := parser.Parse(context.Background(), strings.NewReader(crdWith(c.schema)))
			if err != nil {
				t.Fatal(err)
			}
			if len(pkg.Errors) > 0 {
				t.Fatal(pkg.Errors)
			}
			v := lschema.New(pkg.Objects, lschema.WithLimits(lschema.Limits{MaxDepth: 32}))
			obj := map[string]any{"apiVersion": "example.org/v1", "kind": "Thing", "a": map[string]any{"a": "x"}}
			r, err := v.Validate(context.Background(), obj)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(r.Skipped, "\n"), c.skipped) {
				t.Errorf("Skipped = %v, want one mentioning %q", r.Skipped, c.skipped)
			}
		})
	}
}
