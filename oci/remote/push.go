package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"

	"github.com/xpkgkit/xpkgkit/oci"
)

// Push uploads one blob or manifest (by desc's media type) whose bytes are
// read from content; the registry checks them against desc's digest.
func (r *Repository) Push(ctx context.Context, desc ocispec.Descriptor, content io.Reader) error {
	repo, err := r.remote(ctx)
	if err != nil {
		return r.fail("push", desc.Digest.String(), err)
	}
	if err := repo.Push(ctx, desc, content); err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return r.fail("push", desc.Digest.String(), err)
	}
	return nil
}

// Tag points tag at the manifest desc, which the registry must hold.
func (r *Repository) Tag(ctx context.Context, desc ocispec.Descriptor, tag string) error {
	repo, err := r.remote(ctx)
	if err != nil {
		return r.fail("tag", tag, err)
	}
	if err := repo.Tag(ctx, desc, tag); err != nil {
		return r.fail("tag", tag, err)
	}
	return nil
}

// PushImage copies the image manifest desc, read from f, to the repository
// under each of tags: first the config and layers the registry does not
// hold yet (a blob it holds is not uploaded again), then the manifest, then
// the tags. Pushing the same image twice uploads no blob the second time.
// Every blob read from f is verified, and the manifest is bounded by
// oci.Limits.MaxManifestBytes (opts: oci.WithLimits).
func (r *Repository) PushImage(ctx context.Context, f oci.Fetcher, desc ocispec.Descriptor, tags []string, opts ...oci.Option) error {
	if len(tags) == 0 {
		return r.fail("push", desc.Digest.String(), fmt.Errorf("%w: no tag to push to", oci.ErrInvalidReference))
	}
	img, err := oci.ResolveDescriptor(ctx, f, desc, opts...)
	if err != nil {
		return r.fail("push", desc.Digest.String(), err)
	}
	blobs := append([]ocispec.Descriptor{img.Manifest.Config}, img.Manifest.Layers...)
	for _, b := range blobs {
		if err := r.pushMissing(ctx, f, b); err != nil {
			return err
		}
	}
	mdesc := ocispec.Descriptor{MediaType: img.Descriptor.MediaType, Digest: img.Descriptor.Digest, Size: img.Descriptor.Size}
	if mdesc.MediaType == "" {
		var head struct {
			MediaType string `json:"mediaType"`
		}
		_ = json.Unmarshal(img.RawManifest, &head)
		mdesc.MediaType = head.MediaType
	}
	if err := r.Push(ctx, mdesc, bytes.NewReader(img.RawManifest)); err != nil {
		return err
	}
	for _, t := range tags {
		if err := r.Tag(ctx, mdesc, t); err != nil {
			return err
		}
	}
	return nil
}

// pushMissing uploads blob b from f unless the registry holds it.
func (r *Repository) pushMissing(ctx context.Context, f oci.Fetcher, b ocispec.Descriptor) error {
	ok, err := r.Exists(ctx, ocispec.Descriptor{MediaType: "application/octet-stream", Digest: b.Digest, Size: b.Size})
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	rc, err := oci.FetchVerified(ctx, f, b)
	if err != nil {
		return r.fail("push", b.Digest.String(), err)
	}
	defer rc.Close()
	return r.Push(ctx, b, rc)
}
