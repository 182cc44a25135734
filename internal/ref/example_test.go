package ref_test

import (
	"errors"
	"fmt"

	"github.com/xpkgkit/xpkgkit/internal/ref"
)

func Example() {
	r, _ := ref.Parse("xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.3.1")
	fmt.Println(r.Registry, r.Repository, r.Tag)
	fmt.Println(ref.FriendlyName(r))

	_, err := ref.CheckDependency("crossplane/provider-gcp")
	fmt.Println(errors.Is(err, ref.ErrNoRegistry))
	fmt.Println(ref.CheckVersion(">=v1.0.0") == nil)
	// Output:
	// xpkg.crossplane.io crossplane-contrib/provider-nop v0.3.1
	// provider-nop-v0-3-1
	// true
	// true
}
