package verdictcache

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	_ "crypto/sha256" // digest verification

	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// Media types of the artifacts Registry writes.
const (
	// ArtifactType is the artifact type of an entry's manifest.
	ArtifactType = "application/vnd.xpkgkit.apiserver.verdict.v1"
	// mediaTypeEntry is the media type of an entry's one layer.
	mediaTypeEntry = "application/vnd.xpkgkit.apiserver.verdict.v1+json"
	// maxManifestSize bounds an entry's manifest: it lists one layer.
	maxManifestSize = 4 << 10
)

// Registry keeps entries in one repository of an OCI registry, so that
// every worker of a fleet shares one cache on infrastructure it already
// runs: each entry is a content-addressed blob, the one layer of an
// artifact manifest (artifact type ArtifactType, the empty config) tagged
// with the entry's key. It is safe for concurrent use. Bounding the
// repository (removing old tags and collecting their blobs) is the
// registry's: Registry bounds only what it reads, a manifest of at most
// 4 KiB and an entry of at most maxEntrySize, each verified against its
// digest and size.
type Registry struct {
	repo *remote.Repository
}

// NewRegistry returns a Registry that keeps its entries in repo (a client
// with push access for Put; a client without a blob cache is best: Get
// resolves a tag each time).
func NewRegistry(repo *remote.Repository) *Registry { return &Registry{repo: repo} }

// Get resolves the tag key and returns the entry its manifest lists; no
// tag, or a manifest or entry that is not what Put writes, is a miss.
func (r *Registry) Get(ctx context.Context, key string) ([]byte, bool) {
	if !validKey(key) {
		return nil, false
	}
	desc, err := r.repo.Resolve(ctx, key)
	if err != nil || desc.MediaType != ocispec.MediaTypeImageManifest {
		return nil, false
	}
	raw, ok := r.fetch(ctx, desc, maxManifestSize)
	if !ok {
		return nil, false
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.ArtifactType != ArtifactType || len(m.Layers) != 1 || m.Layers[0].MediaType != mediaTypeEntry {
		return nil, false
	}
	return r.fetch(ctx, m.Layers[0], maxEntrySize)
}

// fetch reads the blob desc, of at most max bytes, and verifies it.
func (r *Registry) fetch(ctx context.Context, desc ocispec.Descriptor, max int64) ([]byte, bool) {
	if desc.Size < 0 || desc.Size > max || desc.Digest.Validate() != nil {
		return nil, false
	}
	rc, err := r.repo.Fetch(ctx, desc)
	if err != nil {
		return nil, false
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, desc.Size+1))
	if err != nil || int64(len(b)) != desc.Size || digest.FromBytes(b) != desc.Digest {
		return nil, false
	}
	return b, true
}

// emptyConfig is the OCI empty descriptor's content.
var emptyConfig = []byte("{}")

// Put pushes value as a blob, the artifact manifest that lists it, and
// the tag key pointing at it. A value larger than maxEntrySize is not
// stored (no error).
func (r *Registry) Put(ctx context.Context, key string, value []byte) error {
	if !validKey(key) {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	if len(value) > maxEntrySize {
		return nil
	}
	layer := ocispec.Descriptor{MediaType: mediaTypeEntry, Digest: digest.FromBytes(value), Size: int64(len(value))}
	config := ocispec.DescriptorEmptyJSON
	m := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       config,
		Layers:       []ocispec.Descriptor{layer},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("verdictcache: %w", err)
	}
	mdesc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
	if err := r.repo.Push(ctx, config, bytes.NewReader(emptyConfig)); err != nil {
		return fmt.Errorf("verdictcache: %w", err)
	}
	if err := r.repo.Push(ctx, layer, bytes.NewReader(value)); err != nil {
		return fmt.Errorf("verdictcache: %w", err)
	}
	if err := r.repo.Push(ctx, mdesc, bytes.NewReader(raw)); err != nil {
		return fmt.Errorf("verdictcache: %w", err)
	}
	if err := r.repo.Tag(ctx, mdesc, key); err != nil {
		return fmt.Errorf("verdictcache: %w", err)
	}
	return nil
}
