package oci

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// MemoryStore is a Store that keeps blobs in memory, for tests and for
// images built on the fly. Its top-level index lists the descriptors given to
// Tag, in order. It is safe for concurrent use.
type MemoryStore struct {
	mu     sync.RWMutex
	blobs  map[digest.Digest][]byte
	index  []ocispec.Descriptor
	limits Limits
}

// NewMemoryStore returns an empty store. Options: WithLimits (MaxBlobBytes
// bounds Push).
func NewMemoryStore(opts ...Option) *MemoryStore {
	return &MemoryStore{blobs: map[digest.Digest][]byte{}, limits: newOptions(opts).limits}
}

// Push stores the content of r as the blob desc, verifying it against desc's
// digest and size first.
func (m *MemoryStore) Push(ctx context.Context, desc ocispec.Descriptor, r io.Reader) error {
	if err := ctxErr(ctx); err != nil {
		return opError("push", desc, "", err)
	}
	if r == nil {
		return opError("push", desc, "", fmt.Errorf("%w: nil reader", ErrInvalidArgument))
	}
	if err := validateDescriptor(desc, "MaxBlobBytes", m.limits.MaxBlobBytes); err != nil {
		return opError("push", desc, "", err)
	}
	if ok, _ := m.exists(desc); ok {
		return nil
	}
	v := &verifyReader{ctx: ctx, rc: io.NopCloser(r), r: io.LimitReader(r, desc.Size+1), desc: desc, h: desc.Digest.Algorithm().Hash()}
	var buf bytes.Buffer
	buf.Grow(int(min(desc.Size, 1<<20))) // the descriptor is not trusted yet
	if _, err := buf.ReadFrom(v); err != nil {
		return opError("push", desc, "", err)
	}
	m.mu.Lock()
	m.blobs[desc.Digest] = buf.Bytes()
	m.mu.Unlock()
	return nil
}

// PushBytes stores b with the given media type and returns its descriptor
// (SHA-256).
func (m *MemoryStore) PushBytes(ctx context.Context, mediaType string, b []byte) (ocispec.Descriptor, error) {
	d := ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(b), Size: int64(len(b))}
	return d, m.Push(ctx, d, bytes.NewReader(b))
}

// Exists reports whether the store holds desc's blob.
func (m *MemoryStore) Exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	if err := ctxErr(ctx); err != nil {
		return false, err
	}
	return m.exists(desc)
}

func (m *MemoryStore) exists(desc ocispec.Descriptor) (bool, error) {
	m.mu.RLock()
	_, ok := m.blobs[desc.Digest]
	m.mu.RUnlock()
	return ok, nil
}

// Fetch implements Fetcher.
func (m *MemoryStore) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, opError("fetch", desc, "", err)
	}
	m.mu.RLock()
	b, ok := m.blobs[desc.Digest]
	m.mu.RUnlock()
	if !ok {
		return nil, opError("fetch", desc, "", ErrNotFound)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// Tag adds desc (a manifest or index already pushed) to the top-level index,
// annotated with org.opencontainers.image.ref.name = ref unless ref is empty.
func (m *MemoryStore) Tag(ctx context.Context, desc ocispec.Descriptor, ref string) error {
	if ok, err := m.Exists(ctx, desc); err != nil || !ok {
		if err == nil {
			err = ErrNotFound
		}
		return opError("tag", desc, "", fmt.Errorf("%w: tag %s", err, safetext.Quote(ref)))
	}
	if ref != "" {
		ann := map[string]string{ocispec.AnnotationRefName: ref}
		for k, v := range desc.Annotations {
			if k != ocispec.AnnotationRefName {
				ann[k] = v
			}
		}
		desc.Annotations = ann
	}
	m.mu.Lock()
	m.index = append(m.index, desc)
	m.mu.Unlock()
	return nil
}

// Index returns the descriptors given to Tag. The result shares no memory
// with the store: changing it changes no later result.
func (m *MemoryStore) Index(ctx context.Context) (ocispec.Index, error) {
	if err := ctxErr(ctx); err != nil {
		return ocispec.Index{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	manifests := make([]ocispec.Descriptor, len(m.index))
	for i, d := range m.index {
		d.Annotations = maps.Clone(d.Annotations)
		d.URLs = slices.Clone(d.URLs)
		d.Data = slices.Clone(d.Data)
		if d.Platform != nil {
			p := *d.Platform
			p.OSFeatures = slices.Clone(p.OSFeatures)
			d.Platform = &p
		}
		manifests[i] = d
	}
	return ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: manifests,
	}, nil
}
