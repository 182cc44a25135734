package xpkg_test

import (
	"context"
	"fmt"
	"log"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/xpkg"
)

// Open reads a package from any source: here a repository whose package is
// in package/. A .xpkg file, an OCI layout (directory or tar) or a
// package.yaml file is opened the same way.
func ExampleOpen() {
	ctx := context.Background()
	pkg, err := xpkg.Open(ctx, "testdata/open/repository")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("read as:", pkg.SourceKind)
	fmt.Println("package:", pkg.Meta[0].Kind, pkg.Pkg().GetName())
	for _, o := range pkg.Objects {
		fmt.Printf("object: %s %s at %s\n", o.Kind, o.ObjectMeta.Name, o.Pos)
	}
	// Output:
	// read as: directory
	// package: Provider provider-in-subdir
	// object: CustomResourceDefinition widgets.example.org at crds/widgets.yaml:1:1
}

// SelectLayer decides where an image's package.yaml is, from the layer
// descriptors alone: the layer annotated base, or the flattened filesystem.
func ExampleSelectLayer() {
	layers := []ocispec.Descriptor{
		{Digest: "sha256:1111111111111111111111111111111111111111111111111111111111111111", Annotations: map[string]string{xpkg.AnnotationKey: xpkg.AnnotationBase}},
		{Digest: "sha256:2222222222222222222222222222222222222222222222222222222222222222", Annotations: map[string]string{xpkg.AnnotationKey: xpkg.AnnotationExamples}},
	}
	sel, err := xpkg.SelectLayer(layers, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("flattened:", sel.BaseLayer == nil)
	fmt.Println("base:", sel.BaseLayer.Digest.Encoded()[:12])
	fmt.Println("examples:", sel.ExamplesLayer.Digest.Encoded()[:12])

	// Two base layers: an error, but the selection is still made.
	layers[1].Annotations[xpkg.AnnotationKey] = xpkg.AnnotationBase
	sel, err = xpkg.SelectLayer(layers, nil)
	fmt.Println(err != nil, len(sel.Facts.BaseLayers))
	// Output:
	// flattened: false
	// base: 111111111111
	// examples: 222222222222
	// true 2
}
