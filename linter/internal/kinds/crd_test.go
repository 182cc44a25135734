package kinds

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/target"
)

func TestCRD(t *testing.T) {
	t.Parallel()
	if got := Releases(); strings.Join(got, ",") != "v1.20.11,v2.0.2,v2.1.0,v2.2.4,v2.3.4,v2.4.0" {
		t.Fatalf("Releases() = %v", got)
	}
	for _, rel := range []string{"v1.20.11", "v1.20.0", "v2.0.2", "v2.1.0", "v2.2.4", "v2.3.4", "v2.2", "v2.3.0", "v2.4.0", "v2.4"} {
		for _, gk := range [][2]string{
			{"apiextensions.crossplane.io", "CompositeResourceDefinition"},
			{"apiextensions.crossplane.io", "Composition"},
			{"pkg.crossplane.io", "Provider"},
		} {
			b, ok := CRD(rel, gk[0], gk[1])
			if !ok {
				t.Errorf("CRD(%s, %s, %s): not found", rel, gk[0], gk[1])
				continue
			}
			var crd struct {
				Kind string `json:"kind"`
				Spec struct {
					Group string `json:"group"`
					Names struct {
						Kind string `json:"kind"`
					} `json:"names"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(b, &crd); err != nil || crd.Kind != "CustomResourceDefinition" || crd.Spec.Group != gk[0] || crd.Spec.Names.Kind != gk[1] {
				t.Errorf("CRD(%s, %s, %s) = %+v, %v", rel, gk[0], gk[1], crd, err)
			}
		}
	}
	// The CEL rules are kept: v2's Package CRD refuses a package name
	// without a dotted registry host.
	if b, _ := CRD("v2.1.0", "pkg.crossplane.io", "Provider"); !strings.Contains(string(b), "x-kubernetes-validations") || !strings.Contains(string(b), "fully qualified image name") {
		t.Error("the Provider CRD of v2.1.0 lost its x-kubernetes-validations")
	}
	// requiredSchemas came with v2.2.
	c21, _ := CRD("v2.1.0", "apiextensions.crossplane.io", "Composition")
	c22, _ := CRD("v2.2.4", "apiextensions.crossplane.io", "Composition")
	if strings.Contains(string(c21), "requiredSchemas") || !strings.Contains(string(c22), "requiredSchemas") {
		t.Error("requiredSchemas should be in v2.2.4's Composition CRD only")
	}
	if _, ok := CRD("v1.19.0", "pkg.crossplane.io", "Provider"); ok {
		t.Error("v1.19 is not embedded")
	}
	// 1.x has no ManagedResourceDefinition and no Operation; its
	// Compositions have mode Resources (the default) beside Pipeline.
	if _, ok := CRD("v1.20.11", "apiextensions.crossplane.io", "ManagedResourceDefinition"); ok {
		t.Error("v1.20.11 has a ManagedResourceDefinition CRD")
	}
	if _, ok := CRD("v1.20.11", "ops.crossplane.io", "Operation"); ok {
		t.Error("v1.20.11 has an Operation CRD")
	}
	if c, _ := CRD("v1.20", "apiextensions.crossplane.io", "Composition"); !strings.Contains(string(c), `"Resources"`) {
		t.Error("v1.20's Composition CRD has no mode Resources")
	}
	if _, ok := CRD("v2.1.0", "example.org", "Nope"); ok {
		t.Error("an unknown kind was found")
	}
	// Returned bytes are a copy.
	a, _ := CRD("v2.1.0", "pkg.crossplane.io", "Provider")
	a[0] = 'x'
	if b, _ := CRD("v2.1.0", "pkg.crossplane.io", "Provider"); b[0] == 'x' {
		t.Error("CRD returned shared bytes")
	}
}

// TestTargetSchemas checks that every line of the target table types
// Crossplane's kinds with its own release's CRDs, all embedded.
func TestTargetSchemas(t *testing.T) {
	t.Parallel()
	for _, r := range target.Releases() {
		if lineOf(r.Schemas) != lineOf(r.Line) {
			t.Errorf("%s: schemas of %s, another line", r.Line, r.Schemas)
		}
		if !slices.Contains(Releases(), r.Schemas) {
			t.Errorf("%s: schemas %s are not embedded", r.Line, r.Schemas)
		}
	}
}

func TestSame(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"v2.4.0", "v2.3.4", true}, // only the revision kinds differ
		{"v2.4", "v2.3", true},
		{"v2.0.2", "v2.1.0", true},
		{"v1.20.11", "v2.1.0", false},
		{"v2.2.4", "v2.3.4", false},
		{"v2.1.0", "v2.1.0", true},
		{"v1.19.0", "v1.19.0", false}, // not embedded
	} {
		if got := Same(c.a, c.b); got != c.want {
			t.Errorf("Same(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func ExampleCRD() {
	b, ok := CRD("v2.3.4", "apiextensions.crossplane.io", "Composition")
	fmt.Println(ok, strings.Contains(string(b), "requiredSchemas"))
	// Output: true true
}
