package ociwrite_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
)

// Write a one-layer image as a docker archive, with its layer annotation
// kept as a config label.
func ExampleBuild() {
	ctx := context.Background()
	layer, err := ociwrite.TarFiles(ociwrite.File{Name: "package.yaml", Data: []byte("kind: Provider\n")})
	if err != nil {
		fmt.Println(err)
		return
	}
	img, err := ociwrite.Build(ctx, ociwrite.Image{
		Layers:           []ociwrite.Layer{{Tar: layer, Annotations: map[string]string{"io.crossplane.xpkg": "base"}}},
		LabelAnnotations: []string{"io.crossplane.xpkg"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var out bytes.Buffer
	if err := img.WriteDockerArchive(ctx, &out); err != nil {
		fmt.Println(err)
		return
	}
	label := ociwrite.LabelKey("io.crossplane.xpkg", img.Layers()[0].Digest)
	fmt.Println(img.Config().Config.Labels[label])
	// Output:
	// base
}
