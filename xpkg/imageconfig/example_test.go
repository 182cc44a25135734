package imageconfig_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

func Example() {
	const mirror = `apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata:
  name: internal-mirror
spec:
  matchImages:
  - prefix: xpkg.crossplane.io/
  rewriteImage:
    prefix: registry.internal.example/crossplane/
`
	set, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Name: "mirror.yaml", Reader: strings.NewReader(mirror)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ref, by, ok := set.Rewrite("xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.4.0")
	fmt.Println(ref, by, ok)
	ref, by, ok = set.Rewrite("index.docker.io/acme/provider:v1")
	fmt.Println(ref, by == "", ok)
	// Output:
	// registry.internal.example/crossplane/crossplane-contrib/provider-nop:v0.4.0 internal-mirror true
	// index.docker.io/acme/provider:v1 true false
}
