package xpkg_test

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/xpkgkit/xpkgkit/xpkg"
)

// Build a package image from a directory in the on-disk format and write it
// as a .xpkg file. The digest is the same on every machine.
func ExampleBuild() {
	ctx := context.Background()
	res, err := xpkg.Build(ctx, os.DirFS("testdata/build/provider-example"),
		xpkg.WithTags("xpkg.example.org/acme/provider-example:v1.0.0"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range res.Manifest().Layers {
		fmt.Printf("layer %s=%s\n", xpkg.AnnotationKey, l.Annotations[xpkg.AnnotationKey])
	}
	fmt.Println("digest:", res.Digest())

	var out bytes.Buffer // or an *os.File named "provider-example.xpkg"
	if err := res.WriteXpkg(ctx, &out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("wrote a .xpkg file:", out.Len() > 0)
	// Output:
	// layer io.crossplane.xpkg=base
	// layer io.crossplane.xpkg=upbound
	// digest: sha256:bb94991f2614e952b0f76aa02cb1cfedeadd66595c8d0f636b0732af9cd2e2a7
	// wrote a .xpkg file: true
}
