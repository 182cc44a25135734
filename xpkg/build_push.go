package xpkg

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// Push pushes the built image to a registry's repository, to (a
// *remote.Repository of package oci/remote, from Client.Repository), under
// each of tags. It is idempotent: blobs the registry holds already are not
// uploaded again, and pushing the same result twice uploads only the
// manifest. It returns the pushed manifest's descriptor; the image is then
// read back with Open(ctx, repository+":"+tag, WithRemote(client)) or with
// its digest.
func (r *BuildResult) Push(ctx context.Context, to Pusher, tags ...string) (ocispec.Descriptor, error) {
	if to == nil {
		return ocispec.Descriptor{}, errors.New("xpkg: push: nil repository")
	}
	store := oci.NewMemoryStore()
	blobs := [][]byte{r.img.ManifestBytes(), r.img.ConfigBytes()}
	descs := []ocispec.Descriptor{r.img.ManifestDescriptor(), r.img.ConfigDescriptor()}
	for i, l := range r.img.Layers() {
		blobs = append(blobs, r.img.LayerBlob(i))
		descs = append(descs, l)
	}
	for i, d := range descs {
		if err := store.Push(ctx, d, bytes.NewReader(blobs[i])); err != nil {
			return ocispec.Descriptor{}, fmt.Errorf("xpkg: push: %w", err)
		}
	}
	mdesc := r.img.ManifestDescriptor()
	if err := to.PushImage(ctx, store, mdesc, tags); err != nil {
		return ocispec.Descriptor{}, err
	}
	return mdesc, nil
}
