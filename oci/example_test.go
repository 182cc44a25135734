package oci_test

import (
	"context"
	"fmt"
	"io"

	"github.com/xpkgkit/xpkgkit/oci"
)

// Read package.yaml from a Crossplane package (testdata/configuration.xpkg is
// the corpus e2e-configuration-dependency package): open the file (a .xpkg, an
// OCI layout directory or tar), resolve the image, take the layer annotated
// io.crossplane.xpkg=base (a .xpkg keeps that annotation as the config label
// io.crossplane.xpkg:<layer digest>; package xpkg's layer selector reads
// both), and stream the file.
func Example() {
	ctx := context.Background()
	src, err := oci.Open(ctx, "testdata/configuration.xpkg")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	img, err := oci.Resolve(ctx, src)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range img.Manifest.Layers {
		label := img.Config.Config.Labels["io.crossplane.xpkg:"+l.Digest.String()]
		if l.Annotations["io.crossplane.xpkg"] != "base" && label != "base" {
			continue
		}
		f, err := oci.ReadLayerFile(ctx, src, l, "package.yaml")
		if err != nil {
			fmt.Println(err)
			return
		}
		n, err := io.Copy(io.Discard, f)
		f.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d layer(s), package.yaml is %d bytes\n", src.Format(), len(img.Manifest.Layers), n)
	}
	// Output:
	// docker-archive: 1 layer(s), package.yaml is 269 bytes
}
