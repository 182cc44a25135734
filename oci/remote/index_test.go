package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
)

// TestPullIndex: an index in a registry is followed to the manifest of the
// platform asked for, as for a local store, and the limits apply.
func TestPullIndex(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	c := anonClient(t)
	repo := reg.Host + "/org/multi"
	image := func(tag, yaml string) *oci.Image {
		return pushBuilt(t, c, repo, tag, ociwrite.Image{
			Layers:     []ociwrite.Layer{fileLayer(t, "package.yaml", yaml, map[string]string{"io.crossplane.xpkg": "base"})},
			MediaTypes: ociwrite.OCIMediaTypes,
		})
	}
	amd := image("amd64", packageYAML)
	arm := image("arm64", packageYAML+"# arm64\n")
	idx := ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{
			{MediaType: arm.Descriptor.MediaType, Digest: arm.Descriptor.Digest, Size: arm.Descriptor.Size, Platform: &ocispec.Platform{OS: "linux", Architecture: "arm64"}},
			{MediaType: amd.Descriptor.MediaType, Digest: amd.Descriptor.Digest, Size: amd.Descriptor.Size, Platform: &ocispec.Platform{OS: "linux", Architecture: "amd64"}},
		},
	}
	raw, _ := json.Marshal(idx)
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
	r, _ := c.Repository(repo)
	ctx := context.Background()
	if err := r.Push(ctx, desc, bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	if err := r.Tag(ctx, desc, "v1"); err != nil {
		t.Fatal(err)
	}

	img, _, err := c.Pull(ctx, repo+":v1")
	if err != nil {
		t.Fatal(err)
	}
	if img.Descriptor.Digest != amd.Descriptor.Digest || len(img.Indexes) != 1 || img.Indexes[0].Digest != desc.Digest {
		t.Errorf("default platform: got %s via %v, want %s via the index", img.Descriptor.Digest, img.Indexes, amd.Descriptor.Digest)
	}
	img, _, err = c.Pull(ctx, repo+":v1", oci.WithPlatform(ocispec.Platform{OS: "linux", Architecture: "arm64"}))
	if err != nil || img.Descriptor.Digest != arm.Descriptor.Digest {
		t.Errorf("arm64: got %v, %v; want %s", img, err, arm.Descriptor.Digest)
	}
	_, _, err = c.Pull(ctx, repo+":v1", oci.WithPlatform(ocispec.Platform{OS: "linux", Architecture: "s390x"}))
	if !errors.Is(err, oci.ErrNoMatchingPlatform) {
		t.Errorf("s390x: err = %v, want oci.ErrNoMatchingPlatform", err)
	}
	_, _, err = c.Pull(ctx, repo+":v1", oci.WithLimits(oci.Limits{MaxIndexDepth: 1}))
	if err != nil {
		t.Errorf("depth 1 (the index alone): %v", err)
	}
	_, _, err = c.Pull(ctx, repo+":v1", oci.WithLimits(oci.Limits{MaxConfigBytes: 8}))
	if !errors.Is(err, limit.ErrExceeded) {
		t.Errorf("MaxConfigBytes 8: err = %v, want limit.ErrExceeded", err)
	}
}
