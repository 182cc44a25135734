package oci

import (
	"context"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Fetcher reads blobs by descriptor. It has the shape of oras-go's
// content.Fetcher, so an oras-go store (or any registry client with the same
// method) can be passed to every reader of this package.
//
// Fetch returns the blob's raw bytes. It need not verify them: every reader in
// this package verifies digest and size while it streams. For a digest it does
// not hold, Fetch returns an error wrapping ErrNotFound. Fetch must be safe for
// concurrent use, and the readers it returns independent of one another.
// Package ocitest checks an implementation against this contract.
type Fetcher interface {
	Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error)
}

// Store is a Fetcher that also has a top-level index: an OCI layout's
// index.json, or the index a docker archive's manifest.json stands for. Resolve
// starts from it.
type Store interface {
	Fetcher
	// Index returns the top-level index.
	Index(ctx context.Context) (ocispec.Index, error)
}

// Media types beyond those of the OCI image spec (ocispec.MediaType...).
const (
	// mediaTypeDockerManifest is the Docker image manifest, schema 2.
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	// mediaTypeDockerManifestList is the Docker manifest list (an index).
	mediaTypeDockerManifestList = "application/vnd.docker.distribution.manifest.list.v2+json"
	// mediaTypeDockerConfig is the Docker image config.
	mediaTypeDockerConfig = "application/vnd.docker.container.image.v1+json"
	// mediaTypeDockerLayer is a gzip-compressed Docker layer.
	mediaTypeDockerLayer = "application/vnd.docker.image.rootfs.diff.tar.gzip"
	// mediaTypeDockerForeignLayer is a gzip-compressed, non-distributable
	// Docker layer.
	mediaTypeDockerForeignLayer = "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip"
	// mediaTypeDockerLayerTar is an uncompressed Docker layer (not part of
	// schema 2, but written by some tools).
	mediaTypeDockerLayerTar = "application/vnd.docker.image.rootfs.diff.tar"
)

// isIndexType reports whether mt is an OCI index or a Docker manifest list.
func isIndexType(mt string) bool {
	return mt == ocispec.MediaTypeImageIndex || mt == mediaTypeDockerManifestList
}

// isManifestType reports whether mt is an OCI or Docker schema 2 image
// manifest.
func isManifestType(mt string) bool {
	return mt == ocispec.MediaTypeImageManifest || mt == mediaTypeDockerManifest
}
