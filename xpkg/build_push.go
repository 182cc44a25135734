package xpkg

import (
	"bytes"
	"context"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// Push pushes the built image to the repository named repository
// ("host[:port]/path", without tag) under each of tags, through client (nil
// means a client with Docker's credentials and no cache). It is
// idempotent: blobs the registry holds already are not uploaded again, and
// pushing the same result twice uploads only the manifest. It returns the
// pushed manifest's descriptor; the image is then read back with
// Open(ctx, repository+":"+tag) or with its digest.
func (r *BuildResult) Push(ctx context.Context, client *remote.Client, repository string, tags ...string) (ocispec.Descriptor, error) {
	if client == nil {
		c, err := remote.New()
		if err != nil {
			return ocispec.Descriptor{}, err
		}
		client = c
	}
	repo, err := client.Repository(repository)
	if err != nil {
		return ocispec.Descriptor{}, err
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
	if err := repo.PushImage(ctx, store, mdesc, tags); err != nil {
		return ocispec.Descriptor{}, err
	}
	return mdesc, nil
}
