package schemakwtest

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestKeywordsCoverSchemaProps: every field of kube-openapi's schema is a
// keyword the Validator checks (Keywords) or one it knowingly leaves out,
// so that a keyword kube-openapi adds is a decision (and a worst case in
// the hostile corpus, which covers Keywords), never a silent gap.
func TestKeywordsCoverSchemaProps(t *testing.T) {
	t.Parallel()
	ignored := []string{
		"id", "$schema", "$ref", "description", "title", "definitions", "patternProperties",
		"dependencies", "additionalItems", "discriminator", "readOnly", "xml", "externalDocs", "example",
	}
	kw := Keywords()
	for _, typ := range []reflect.Type{reflect.TypeOf(spec.SchemaProps{}), reflect.TypeOf(spec.SwaggerSchemaProps{})} {
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !slices.Contains(kw, name) && !slices.Contains(ignored, name) {
				t.Errorf("schema field %q is neither a keyword the Validator checks (internal/schemakwtest) nor one it leaves out", name)
			}
		}
	}
	for _, k := range kw {
		if k == "" || slices.Contains(ignored, k) {
			t.Errorf("keyword %q listed as checked and as left out", k)
		}
	}
}
