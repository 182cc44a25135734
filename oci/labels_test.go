package oci_test

import (
	"bytes"
	"context"
	"maps"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/xpkgkit/xpkgkit/oci"
)

// TestDockerArchiveLabelAnnotations: a docker archive cannot keep layer
// annotations; any config label "<key>:<layer digest>" (not only
// Crossplane's) becomes that layer's annotation in the synthesised
// manifest, and labels naming no layer, or of another form, do not.
func TestDockerArchiveLabelAnnotations(t *testing.T) {
	t.Parallel()
	layer := gzipBytes(t, tarBytes(t, file("package.yaml", "kind: Provider\n")))
	ld := digest.FromBytes(layer)
	cfg := []byte(`{"config":{"Labels":{` +
		`"example.org/role:` + ld.String() + `":"data",` +
		`"io.crossplane.xpkg:` + ld.String() + `":"base",` +
		`"example.org/other:` + digest.FromString("no layer").String() + `":"x",` +
		`"org.opencontainers.image.title":"plain"}},"rootfs":{"type":"layers"}}`)
	b := dockerArchive(t, "sha256:"+digest.FromBytes(cfg).Encoded(), cfg, ld.Encoded()+".tar.gz", layer)
	ctx := context.Background()
	a, err := oci.OpenReaderAt(ctx, bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	img, err := oci.Resolve(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"example.org/role": "data", "io.crossplane.xpkg": "base"}
	if len(img.Manifest.Layers) != 1 || !maps.Equal(img.Manifest.Layers[0].Annotations, want) {
		t.Errorf("layer annotations %v, want %v", img.Manifest.Layers, want)
	}
}
