package apiserver

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/parser"
)

// checkDecodeCRD checks that decodeCRD, when it decodes content, builds
// the internal CRD that the JSON decoder and the API server's conversion
// build from content's JSON (internalCRDJSON), and reports whether it did.
func checkDecodeCRD(t *testing.T, name string, content map[string]any) bool {
	t.Helper()
	fast, ok := decodeCRD(content)
	slow, fs, err := internalCRDJSON(content)
	if !ok {
		return false
	}
	if err != nil || fs != nil {
		t.Errorf("%s: decodeCRD decoded what the JSON decoder or the conversion refuses: %v %v", name, fs, err)
		return true
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: decodeCRD differs from the JSON decoder", name)
	}
	return true
}

func crdWithSchema(schema any) map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "things.example.org"},
		"spec": map[string]any{
			"group": "example.org",
			"names": map[string]any{"kind": "Thing", "plural": "things"},
			"scope": "Cluster",
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": schema}},
			},
		},
	}
}

func TestDecodeCRDMatchesJSON(t *testing.T) {
	t.Parallel()
	full := map[string]any{
		"type": "object", "description": "d", "id": "i", "$schema": "s", "$ref": "#/r", "format": "f", "title": "t",
		"default": map[string]any{"a": []any{int64(1), 2.5, "x<y", nil, true}}, "example": "e",
		"maximum": int64(9007199254740993), "minimum": -1.5e-9, "multipleOf": 0.1,
		"exclusiveMaximum": true, "exclusiveMinimum": false, "uniqueItems": true, "nullable": true,
		"x-kubernetes-embedded-resource": true, "x-kubernetes-int-or-string": true, "x-kubernetes-preserve-unknown-fields": false,
		"maxLength": int64(3), "minLength": int64(0), "maxItems": int64(1), "minItems": int64(0),
		"maxProperties": int64(9), "minProperties": int64(1), "pattern": "^a+$",
		"enum":     []any{"a", nil, int64(1), map[string]any{"k": "v"}},
		"required": []any{"a"}, "x-kubernetes-list-map-keys": []any{}, "x-kubernetes-list-type": "map", "x-kubernetes-map-type": "atomic",
		"items":                []any{map[string]any{"type": "string"}},
		"allOf":                []any{map[string]any{"required": []any{"b"}}},
		"oneOf":                []any{},
		"anyOf":                []any{map[string]any{}},
		"not":                  map[string]any{"type": "integer"},
		"properties":           map[string]any{"a": map[string]any{"type": "string", "items": map[string]any{"type": "string"}}, "b": map[string]any{}},
		"patternProperties":    map[string]any{"^x": map[string]any{"type": "string"}},
		"definitions":          map[string]any{},
		"additionalProperties": map[string]any{"type": "string"},
		"additionalItems":      false,
		"x-kubernetes-validations": []any{
			map[string]any{"rule": "self.a", "message": "m", "messageExpression": "'x'", "reason": "FieldValueInvalid", "fieldPath": ".a", "optionalOldSelf": true},
			map[string]any{"rule": "true", "message": nil},
		},
		"description2": nil,
	}
	delete(full, "description2")
	tests := []struct {
		name     string
		content  map[string]any
		wantFast bool
	}{
		{"every field", crdWithSchema(full), true},
		{"nulls", crdWithSchema(map[string]any{"type": nil, "items": nil, "properties": nil, "default": nil, "maxLength": nil}), true},
		{"no schema", crdWithSchema(nil), true},
		{"additionalProperties true", crdWithSchema(map[string]any{"additionalProperties": true}), true},
		{"JSON values", crdWithSchema(map[string]any{
			"default": 2.0, "example": 1e21,
			"enum": []any{1e20, 2.5, int64(-7), "\u2028<&>", false, []any{}, map[string]any{"b": 1.0, "a": nil}},
		}), true},
		{"schema without openAPIV3Schema", withVersions(map[string]any{}), true},
		{"versions with one schema", withVersions(
			map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}},
			map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}},
		), true},
		{"versions with other schemas", withVersions(
			map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}},
			map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer"}}}},
		), true},
		{"versions with and without a schema", withVersions(
			map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}},
			nil,
			map[string]any{},
		), true},
		{"versions without schemas", withVersions(nil, nil), true},
		{"webhook conversion", func() map[string]any {
			c := withVersions(map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}, map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}})
			c["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []any{"v1"}}}
			return c
		}(), true},
		// Left to the JSON decoder.
		{"unknown key", crdWithSchema(map[string]any{"Type": "object"}), false},
		{"unknown key null", crdWithSchema(map[string]any{"Type": nil}), false},
		{"wrong type", crdWithSchema(map[string]any{"type": int64(1)}), false},
		{"float length", crdWithSchema(map[string]any{"maxLength": 1.0}), false},
		{"string maximum", crdWithSchema(map[string]any{"maximum": "1"}), false},
		{"invalid UTF-8", crdWithSchema(map[string]any{"description": "a\xffb"}), false},
		{"invalid UTF-8 key", crdWithSchema(map[string]any{"properties": map[string]any{"a\xff": map[string]any{}}}), false},
		{"items scalar", crdWithSchema(map[string]any{"items": "x"}), false},
		{"additionalProperties scalar", crdWithSchema(map[string]any{"additionalProperties": "x"}), false},
		{"dependencies", crdWithSchema(map[string]any{"dependencies": map[string]any{"a": []any{"b"}}}), false},
		{"null in allOf", crdWithSchema(map[string]any{"allOf": []any{nil}}), false},
		{"schema not a map", crdWithSchema([]any{}), false},
		{"bad rest", func() map[string]any {
			c := crdWithSchema(map[string]any{"type": "object"})
			c["spec"].(map[string]any)["scope"] = int64(1)
			return c
		}(), false},
		{"no versions", map[string]any{"spec": map[string]any{"group": "g"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := checkDecodeCRD(t, tt.name, tt.content); got != tt.wantFast {
				t.Errorf("decoded by the fast path: %v, want %v", got, tt.wantFast)
			}
		})
	}
}

// withVersions is a CRD with a version per schema (nil: a version
// without one), the first stored, each with a subresource and a column.
func withVersions(schemas ...map[string]any) map[string]any {
	c := crdWithSchema(nil)
	versions := make([]any, len(schemas))
	for i, s := range schemas {
		v := map[string]any{
			"name": "v" + string(rune('1'+i)), "served": true, "storage": i == 0,
			"subresources":             map[string]any{"status": map[string]any{}},
			"additionalPrinterColumns": []any{map[string]any{"name": "A", "type": "string", "jsonPath": ".spec.a"}},
		}
		if s != nil {
			v["schema"] = s
		}
		versions[i] = v
	}
	c["spec"].(map[string]any)["versions"] = versions
	return c
}

// TestDecodeCRDAliasedSchemas checks that decodeCRD leaves content as it
// was, when versions share one schema map (a YAML alias).
func TestDecodeCRDAliasedSchemas(t *testing.T) {
	t.Parallel()
	schema := map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}
	c := crdWithSchema(nil)
	spec := c["spec"].(map[string]any)
	spec["versions"] = []any{
		map[string]any{"name": "v1", "served": true, "storage": true, "schema": schema},
		map[string]any{"name": "v2", "served": true, "storage": false, "schema": schema},
	}
	before, err := marshalJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	if !checkDecodeCRD(t, "aliased", c) {
		t.Error("not decoded by the fast path")
	}
	after, err := marshalJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Errorf("content changed:\n%s\n%s", before, after)
	}
}

// TestDecodeCRDCorpus checks decodeCRD against the JSON decoder on every
// CRD of this package's test data and of the corpus, and that the fast
// path decodes the corpus's CRDs.
func TestDecodeCRDCorpus(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, pkg *parser.Package) (crds, fast int) {
		for _, o := range pkg.Objects {
			if o.GroupVersionKind().Kind != "CustomResourceDefinition" {
				continue
			}
			u, err := o.Unstructured()
			if err != nil {
				continue
			}
			crds++
			if checkDecodeCRD(t, o.Ref().String(), u.Object) {
				fast++
			}
		}
		return crds, fast
	}
	t.Run("testdata", func(t *testing.T) {
		t.Parallel()
		err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			pkg, err := parser.Parse(context.Background(), f, parser.WithFile(path))
			if err != nil {
				return nil // a case of a package that does not parse
			}
			check(t, pkg)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	for _, name := range testcorpus.Names() {
		t.Run(name, func(t *testing.T) {
			if (raceBuild || testing.Short()) && (name == "provider-upjet-aws-monolith" || name == "provider-aws") {
				// As the other corpus tests: the largest packages run
				// without -race and -short (CI's corpus step).
				t.Skip("a large package, under -race or -short")
			}
			pkg := parseCorpus(t, name)
			crds, fast := check(t, pkg)
			t.Logf("%d CRDs, %d by the fast path", crds, fast)
			if fast != crds {
				t.Errorf("the fast path decoded %d of %d CRDs", fast, crds)
			}
		})
	}
}
