package v1_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
)

func Example() {
	crossplaneYAML := []byte(`
apiVersion: meta.pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-example
spec:
  crossplane:
    version: ">=v1.17.0"
  capabilities:
  - composition
`)
	var fn v1.Function
	if err := yaml.UnmarshalStrict(crossplaneYAML, &fn); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fn.Name, fn.GetCrossplaneConstraints().Version, fn.GetCapabilities())
	// Output: function-example >=v1.17.0 [composition]
}

func ExampleAddToScheme() {
	s := runtime.NewScheme()
	if err := v1.AddToScheme(s, "meta.pkg.example.org"); err != nil {
		fmt.Println(err)
		return
	}
	obj, err := s.New(v1.GroupVersion("meta.pkg.example.org").WithKind("Provider"))
	fmt.Printf("%T %v\n", obj, err)
	// Output: *v1.Provider <nil>
}
