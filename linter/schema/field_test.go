package schema_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
)

// TestField describes fields of a CRD, of an XRD's derived CRDs and of
// Crossplane's and Kubernetes' kinds.
func TestField(t *testing.T) {
	t.Parallel()
	defs := lschema.New(parse(t, "testdata/defs.yaml").Objects)
	bucket := schema.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "Bucket"}
	comp := schema.GroupVersionKind{Group: "apiextensions.crossplane.io", Version: "v1", Kind: "Composition"}
	crd := schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	tests := []struct {
		name      string
		v         *lschema.Validator
		gvk       schema.GroupVersionKind
		path      []string
		wantType  string
		wantDesc  string // a substring of the description
		wantEnum  int
		wantProp  string // one of Properties
		wantValid string // a substring of one Validation entry
		required  bool
		embedded  bool
		wantErr   error
	}{
		{name: "enum", v: defs, gvk: bucket, path: []string{"spec", "region"}, wantType: "string", wantEnum: 2, required: true},
		{name: "range", v: defs, gvk: bucket, path: []string{"spec", "size"}, wantType: "integer", wantValid: "maximum: 100"},
		{name: "int-or-string", v: defs, gvk: bucket, path: []string{"spec", "port"}, wantType: "integer|string"},
		{name: "object", v: defs, gvk: bucket, path: []string{"spec"}, wantType: "object", wantProp: "region", wantValid: "rule: self.region"},
		{name: "list item", v: defs, gvk: bucket, path: []string{"spec", "tags", "0"}, wantType: "string"},
		{name: "xrd claim", v: defs, gvk: schema.GroupVersionKind{Group: "example.org", Version: "v1alpha1", Kind: "Network"}, path: []string{"spec", "cidr"}, wantType: "string", required: true},
		{name: "composition", v: lschema.PackageKindsAt("v2.4"), gvk: comp, path: []string{"spec", "compositeTypeRef"}, wantType: "object", wantProp: "apiVersion", required: true},
		{name: "composed base", v: lschema.PackageKinds(), gvk: comp, path: []string{"spec", "pipeline", "0", "input"}, wantType: "object", embedded: true},
		{name: "composition mode", v: lschema.PackageKinds(), gvk: comp, path: []string{"spec", "mode"}, wantType: "string", wantEnum: 1},
		{name: "kubernetes ref", v: lschema.PackageKinds(), gvk: crd, path: []string{"spec", "names"}, wantType: "object", wantProp: "kind", required: true},
		{name: "unknown field", v: defs, gvk: bucket, path: []string{"spec", "nope"}, wantErr: lschema.ErrUnknownField},
		{name: "unknown kind", v: defs, gvk: comp, wantErr: lschema.ErrNoDefinition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ks, err := tt.v.Schema(context.Background(), tt.gvk)
			var f *lschema.Field
			if err == nil {
				f, err = ks.Field(tt.path...)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Type != tt.wantType {
				t.Errorf("Type = %q, want %q", f.Type, tt.wantType)
			}
			if !strings.Contains(strings.ToLower(f.Description), tt.wantDesc) {
				t.Errorf("Description = %q, want it to hold %q", f.Description, tt.wantDesc)
			}
			if len(f.Enum) != tt.wantEnum {
				t.Errorf("Enum = %v, want %d values", f.Enum, tt.wantEnum)
			}
			if tt.wantProp != "" && !slices.Contains(f.Properties, tt.wantProp) {
				t.Errorf("Properties = %v, want %q among them", f.Properties, tt.wantProp)
			}
			if tt.wantValid != "" && !slices.ContainsFunc(f.Validation, func(s string) bool { return strings.Contains(s, tt.wantValid) }) {
				t.Errorf("Validation = %v, want %q", f.Validation, tt.wantValid)
			}
			if f.Required != tt.required {
				t.Errorf("Required = %v, want %v", f.Required, tt.required)
			}
			if f.Embedded != tt.embedded {
				t.Errorf("Embedded = %v, want %v", f.Embedded, tt.embedded)
			}
			if f.Definition == "" {
				t.Error("no Definition")
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := defs.Schema(ctx, bucket); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
