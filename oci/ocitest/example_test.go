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
	f, err := oci.ReadFile(ctx, s, img.Manifest.Layers, "package.yaml")
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
	fmt.Println(oci.PlatformString(*img.Platform), len(img.Manifest.Layers), "layers")
	fmt.Printf("%s\n", b)
	// Output:
	// linux/amd64 2 layers
	// apiVersion: meta.pkg.crossplane.io/v1
	// kind: Provider
	// metadata:
	//   name: ocitest
	// linux/amd64
}

// RandomIndex makes the same index from the same seed, on every run and
// machine: a property test can name a failing case by its seed.
func ExampleRandomIndex() {
	ctx := context.Background()
	s := oci.NewMemoryStore()
	blobs, index := ocitest.RandomIndex(1, 2, 3, 1024) // 2 images of 3 layers of 1 KiB
	for _, b := range blobs {
		if err := s.Push(ctx, b.Descriptor, bytes.NewReader(b.Data)); err != nil {
			fmt.Println(err)
			return
		}
	}
	arm64, _ := oci.ParsePlatform("linux/arm64")
	img, err := oci.ResolveDescriptor(ctx, s, index, oci.WithPlatform(arm64))
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := oci.ReadFile(ctx, s, img.Manifest.Layers, "random/2")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	n, err := io.Copy(io.Discard, f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(blobs), "blobs;", oci.PlatformString(*img.Platform), len(img.Manifest.Layers), "layers;", "random/2", n, "bytes")
	fmt.Println(index.Digest)
	// Output:
	// 11 blobs; linux/arm64 3 layers; random/2 1024 bytes
	// sha256:cc478d85a86ebc4c3ed11a6227c9550ebb65203fa965bf3576035080d0f58b8d
}
