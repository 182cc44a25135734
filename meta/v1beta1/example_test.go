package v1beta1_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/xpkgkit/xpkgkit/meta/v1beta1"
)

func ExampleAddToScheme() {
	s := runtime.NewScheme()
	if err := v1beta1.AddToScheme(s, ""); err != nil {
		fmt.Println(err)
		return
	}
	obj, err := s.New(v1beta1.GroupVersion("").WithKind("Function"))
	fmt.Printf("%T %v\n", obj, err)
	// Output: *v1beta1.Function <nil>
}
