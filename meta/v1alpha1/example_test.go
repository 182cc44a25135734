package v1alpha1_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
)

func ExampleAddToScheme() {
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s, ""); err != nil {
		fmt.Println(err)
		return
	}
	for _, kind := range []string{"Provider", "Configuration", "Function"} {
		gvk := v1alpha1.GroupVersion("").WithKind(kind)
		fmt.Println(gvk.Kind, s.Recognizes(gvk))
	}
	// Output:
	// Provider true
	// Configuration true
	// Function false
}
