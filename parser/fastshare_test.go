package parser

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
)

// sharedCRD is a CRD of kind and plural whose outline holds values every
// such CRD repeats: printer columns, categories, subresources, the
// top-level schema properties.
func sharedCRD(kind, plural string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.example.org
spec:
  group: example.org
  names:
    categories:
    - crossplane
    kind: ` + kind + `
    plural: ` + plural + `
  scope: Cluster
  versions:
  - additionalPrinterColumns:
    - jsonPath: .status.ready
      name: READY
      type: string
    name: v1
    schema:
      openAPIV3Schema:
        properties:
          spec:
            type: object
        type: object
    served: true
    storage: true
    subresources:
      status: {}
`
}

// sharedCRDs is two CRDs whose outlines hold equal values and differ in
// their names.
var sharedCRDs = sharedCRD("A", "as") + "---\n" + sharedCRD("B", "bs")

// same reports whether a and b are the same map or slice.
func same(a, b any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestOutlinesShareEqualValues(t *testing.T) {
	t.Parallel()
	for _, d := range []string{sharedCRD("A", "as"), sharedCRD("B", "bs")} {
		if _, ok := fastDecode([]byte(d), defaultOutlineDepth, 0, nil); !ok {
			t.Fatalf("the fast path does not read the test's CRD:\n%s", d)
		}
	}
	p, err := Parse(context.Background(), strings.NewReader(sharedCRDs))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Objects) != 2 {
		t.Fatalf("%d objects, want 2", len(p.Objects))
	}
	version := func(o *Object) map[string]any {
		return o.Outline()["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	}
	a, b := version(p.Objects[0]), version(p.Objects[1])
	for _, k := range []string{"additionalPrinterColumns", "schema", "subresources"} {
		if !same(a[k], b[k]) {
			t.Errorf("%s: the outlines hold two equal values, want one shared", k)
		}
	}
	if !same(a, b) {
		t.Error("versions[0]: the outlines hold two equal values, want one shared")
	}
	specA, specB := p.Objects[0].Outline()["spec"], p.Objects[1].Outline()["spec"]
	if same(specA, specB) || reflect.DeepEqual(specA, specB) {
		t.Error("spec: different values shared")
	}
	if got := specA.(map[string]any)["names"].(map[string]any)["kind"]; got != "A" {
		t.Errorf("spec.names.kind = %v, want A", got)
	}
	// Sharing changes no value: the full parse builds every value anew.
	full, err := Parse(context.Background(), strings.NewReader(sharedCRDs), withFullParse())
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Objects {
		if !reflect.DeepEqual(p.Objects[i].Outline(), full.Objects[i].Outline()) {
			t.Errorf("object %d: the outline differs from the full parse's", i)
		}
	}
}

func TestSharerComparesValues(t *testing.T) {
	t.Parallel()
	s := newSharer()
	child := s.share(1, map[string]any{"a": "x"}).(map[string]any)
	equalChild := map[string]any{"a": "x"}
	cases := []struct {
		name string
		v    any
		want bool // shared with the first value of its hash
	}{
		{"equal map", map[string]any{"k": "v", "n": int64(1), "c": child}, true},
		{"another value", map[string]any{"k": "v", "n": int64(2), "c": child}, false},
		{"another type", map[string]any{"k": "v", "n": float64(1), "c": child}, false},
		{"an equal child that is another map", map[string]any{"k": "v", "n": int64(1), "c": equalChild}, false},
		{"a key more", map[string]any{"k": "v", "n": int64(1), "c": child, "d": nil}, false},
		{"a sequence", []any{"v", int64(1), child}, false},
	}
	first := map[string]any{"k": "v", "n": int64(1), "c": child}
	if got := s.share(7, first); !same(got, first) {
		t.Fatal("the first value of a hash is not kept")
	}
	for _, c := range cases {
		// Every case has the first value's hash: only equality decides.
		got := s.share(7, c.v)
		if shared := same(got, first); shared != c.want {
			t.Errorf("%s: shared = %v, want %v", c.name, shared, c.want)
		}
	}
	nan := []any{math.NaN()}
	if got := s.share(9, nan); !same(got, nan) {
		t.Fatal("NaN sequence not kept")
	}
	if got := s.share(9, []any{math.NaN()}); !same(got, nan) {
		t.Error("two sequences of the same NaN bits are not shared")
	}
}

func TestSharerBound(t *testing.T) {
	t.Parallel()
	s := newSharer()
	s.n = maxShared
	v := map[string]any{"k": "v"}
	if got := s.share(1, v); !same(got, v) {
		t.Fatal("share did not return the value")
	}
	if len(s.table) != 0 {
		t.Errorf("the table grew past maxShared: %d hashes", len(s.table))
	}
}
