package ocitest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/ocitest"
)

// Image gives a ready two-platform image to push into any store.
func ExampleImage() {
	ctx := context.Background()
	s := oci.NewMemoryStore()
	blobs, index := ocitest.Image()
	for _, b := range blobs {
		if err := s.Push(ctx, b.Descriptor, bytes.NewReader(b.Data)); err != nil {
			fmt.Println(err)
			return
		}
	}
	img, err := oci.ResolveDescriptor(ctx, s, index) // linux/amd64 by default
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := oci.ReadFile(ctx, s, img.Layers, "package.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(oci.PlatformString(*img.Platform), len(img.Layers), "layers")
	fmt.Printf("%s\n", b)
	// Output:
	// linux/amd64 2 layers
	// apiVersion: meta.pkg.crossplane.io/v1
	// kind: Provider
	// metadata:
	//   name: ocitest
	// linux/amd64
}
