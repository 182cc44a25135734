package meta_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/meta"
)

// Example decodes a crossplane.yaml the way the parser does, then reads it
// through the version-independent view.
func Example() {
	crossplaneYAML := []byte(`
apiVersion: meta.pkg.crossplane.io/v1alpha1
kind: Provider
metadata:
  name: provider-example
  annotations:
    meta.crossplane.io/license: Apache-2.0
spec:
  crossplane:
    version: ">=v1.14.0"
  dependsOn:
  - provider: xpkg.crossplane.io/crossplane-contrib/provider-nop
    version: ">=v0.3.0"
  capabilities:
  - SafeStart
`)
	s, err := meta.NewScheme()
	if err != nil {
		fmt.Println(err)
		return
	}
	var m map[string]any
	if err := yaml.Unmarshal(crossplaneYAML, &m); err != nil {
		fmt.Println(err)
		return
	}
	gvk := (&unstructured.Unstructured{Object: m}).GroupVersionKind()
	obj, err := s.New(gvk)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, obj); err != nil {
		fmt.Println(err)
		return
	}
	p := obj.(meta.Pkg)
	kind, _ := meta.KindOf(p)
	fmt.Println(kind, p.GetName(), p.GetAnnotations()[meta.AnnotationLicense])
	fmt.Println("crossplane", p.GetCrossplaneConstraints().Version)
	for _, d := range p.GetDependencies() {
		//lint:ignore SA1019 this package declares its dependency the v1.x way
		fmt.Println("depends on", *d.Provider, d.Version)
	}
	for _, c := range p.GetCapabilities() {
		fmt.Println("capability", c, "known:", meta.CapabilitiesContain(meta.KnownCapabilities(kind), c))
	}

	v1p, err := meta.ToV1(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%T %s\n", v1p, v1p.GetObjectKind().GroupVersionKind().GroupVersion())
	// Output:
	// Provider provider-example Apache-2.0
	// crossplane >=v1.14.0
	// depends on xpkg.crossplane.io/crossplane-contrib/provider-nop >=v0.3.0
	// capability SafeStart known: true
	// *v1.Provider meta.pkg.crossplane.io/v1
}

// ExampleWithGroup decodes the meta object of a fork of Crossplane whose meta
// group is meta.pkg.ibm.crossplane.io into the same Go types.
func ExampleWithGroup() {
	s, err := meta.NewScheme(meta.WithGroup("meta.pkg.ibm.crossplane.io"))
	if err != nil {
		fmt.Println(err)
		return
	}
	obj, err := s.New(schema.GroupVersionKind{Group: "meta.pkg.ibm.crossplane.io", Version: "v1alpha1", Kind: "Configuration"})
	fmt.Printf("%T %v\n", obj, err)
	// Output:
	// *v1alpha1.Configuration <nil>
}

func ExampleCapabilitiesContain() {
	for _, c := range []string{"safe-start", "SafeStart", "safe_start", "composition"} {
		fmt.Println(c, meta.CapabilitiesContain(meta.KnownCapabilities(meta.KindProvider), c))
	}
	// Output:
	// safe-start true
	// SafeStart true
	// safe_start true
	// composition false
}
