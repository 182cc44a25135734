package ociwrite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Docker schema 2 media types, which the Crossplane CLI writes.
const (
	// MediaTypeDockerManifest is the media type of a Docker schema 2 manifest.
	MediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	// MediaTypeDockerConfig is the media type of a Docker image config.
	MediaTypeDockerConfig = "application/vnd.docker.container.image.v1+json"
	// MediaTypeDockerLayerGzip is the media type of a gzip-compressed Docker
	// layer.
	MediaTypeDockerLayerGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip"
)

// GzipLevel is the compression level of every layer. Changing it changes
// every digest this package computes.
const GzipLevel = gzip.DefaultCompression

// MediaTypes chooses the media types of the manifest, config and layers.
type MediaTypes int

const (
	// DockerMediaTypes writes Docker schema 2 media types, as the Crossplane
	// CLI does. It is the default.
	DockerMediaTypes MediaTypes = iota
	// OCIMediaTypes writes OCI image-spec media types.
	OCIMediaTypes
)

// ErrNoLayerContent is returned when a Layer has neither Tar nor WriteTar.
var ErrNoLayerContent = errors.New("ociwrite: layer has neither Tar nor WriteTar")

// Layer is one layer of an image to write.
type Layer struct {
	// Tar is the layer's uncompressed tar stream. Exactly one of Tar and
	// WriteTar must be set.
	Tar []byte
	// WriteTar writes the layer's uncompressed tar stream to w. It is called
	// once, by Build.
	WriteTar func(w io.Writer) error
	// Annotations are the layer descriptor's annotations in the manifest.
	Annotations map[string]string
	// Corrupt stores a blob whose bytes do not match the layer's digest: one
	// byte of the gzip header's modification time is changed after the
	// digest is computed, so the blob still decompresses to the same tar and
	// only a reader that verifies digests notices. For fixtures.
	Corrupt bool
}

// Image describes an image to build.
type Image struct {
	// Layers are the image's layers, bottom first.
	Layers []Layer
	// Config is the image config. Build fills RootFS from the layers, adds
	// one History entry per layer (created at Config.Created) when History is
	// empty, and adds the labels of LabelAnnotations to Config.Labels. The
	// caller's value is not modified.
	Config ocispec.Image
	// ManifestAnnotations are the manifest's annotations.
	ManifestAnnotations map[string]string
	// LabelAnnotations lists layer annotation keys that are also recorded as
	// config labels, because a docker archive drops layer annotations: for
	// each layer with annotation KEY=VALUE where KEY is listed, the config
	// gets label "KEY:<layer digest>" = VALUE (see LabelKey).
	LabelAnnotations []string
	// RefNames name the image: each becomes an index.json entry annotated
	// org.opencontainers.image.ref.name in a layout, and a RepoTags entry in
	// a docker archive ("registry/repo:tag" there). None is fine.
	RefNames []string
	// MediaTypes chooses Docker (default) or OCI media types.
	MediaTypes MediaTypes
}

// LabelKey returns the config label that records layer annotation key for
// the layer with digest d: "key:sha256:<hex>".
func LabelKey(key string, d digest.Digest) string {
	return key + ":" + d.String()
}

// blob is content with its descriptor. data may differ from what the
// descriptor's digest says when the blob is deliberately corrupt.
type blob struct {
	desc ocispec.Descriptor
	data []byte
}

// Built is an image whose blobs are computed and held in memory, ready to be
// written in any form. It is safe for concurrent use.
type Built struct {
	config   ocispec.Image
	cfgBlob  blob
	manifest ocispec.Manifest
	manBlob  blob
	layers   []blob
	diffIDs  []digest.Digest
	refNames []string
}

// Build compresses img's layers, computes their digests, and makes the
// config and the manifest.
func Build(ctx context.Context, img Image) (*Built, error) {
	mt := mediaTypesOf(img.MediaTypes)
	b := &Built{refNames: slices.Clone(img.RefNames)}
	for i, l := range img.Layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lb, diffID, err := compressLayer(ctx, l, mt.layer)
		if err != nil {
			return nil, fmt.Errorf("ociwrite: layer %d: %w", i, err)
		}
		b.layers = append(b.layers, lb)
		b.diffIDs = append(b.diffIDs, diffID)
	}

	cfg := img.Config
	cfg.RootFS = ocispec.RootFS{Type: "layers", DiffIDs: slices.Clone(b.diffIDs)}
	if len(cfg.History) == 0 {
		cfg.History = make([]ocispec.History, len(b.layers))
		for i := range cfg.History {
			cfg.History[i].Created = cfg.Created
		}
	} else {
		cfg.History = slices.Clone(cfg.History)
	}
	labels := maps.Clone(cfg.Config.Labels)
	for _, lb := range b.layers {
		for _, key := range img.LabelAnnotations {
			v, ok := lb.desc.Annotations[key]
			if !ok {
				continue
			}
			if labels == nil {
				labels = map[string]string{}
			}
			labels[LabelKey(key, lb.desc.Digest)] = v
		}
	}
	cfg.Config.Labels = labels
	b.config = cfg
	cfgBytes, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("ociwrite: encoding config: %w", err)
	}
	b.cfgBlob = newBlob(mt.config, cfgBytes)

	man := ocispec.Manifest{
		Versioned:   specs.Versioned{SchemaVersion: 2},
		MediaType:   mt.manifest,
		Config:      b.cfgBlob.desc,
		Layers:      make([]ocispec.Descriptor, len(b.layers)),
		Annotations: maps.Clone(img.ManifestAnnotations),
	}
	for i, lb := range b.layers {
		man.Layers[i] = lb.desc
	}
	b.manifest = man
	manBytes, err := json.Marshal(man)
	if err != nil {
		return nil, fmt.Errorf("ociwrite: encoding manifest: %w", err)
	}
	b.manBlob = newBlob(mt.manifest, manBytes)
	return b, nil
}

type mediaTypeSet struct{ manifest, config, layer string }

func mediaTypesOf(m MediaTypes) mediaTypeSet {
	if m == OCIMediaTypes {
		return mediaTypeSet{ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageConfig, ocispec.MediaTypeImageLayerGzip}
	}
	return mediaTypeSet{MediaTypeDockerManifest, MediaTypeDockerConfig, MediaTypeDockerLayerGzip}
}

func newBlob(mediaType string, data []byte) blob {
	return blob{
		desc: ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data))},
		data: data,
	}
}

// compressLayer gzips l's tar stream and returns the blob and the digest of
// the uncompressed stream (the diff ID).
func compressLayer(ctx context.Context, l Layer, mediaType string) (blob, digest.Digest, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, GzipLevel)
	if err != nil {
		return blob{}, "", err
	}
	// A fixed header: no name or comment, modification time 0 (set
	// explicitly: this writer would encode a zero time.Time as a non-zero
	// value), OS 255 (unknown).
	zw.ModTime = time.Unix(0, 0)
	zw.OS = 255
	diff := sha256.New()
	w := ctxWriter{ctx: ctx, w: io.MultiWriter(zw, diff)}
	switch {
	case l.Tar != nil && l.WriteTar != nil:
		return blob{}, "", errors.New("ociwrite: layer has both Tar and WriteTar")
	case l.Tar != nil:
		_, err = w.Write(l.Tar)
	case l.WriteTar != nil:
		err = l.WriteTar(w)
	default:
		err = ErrNoLayerContent
	}
	if err != nil {
		return blob{}, "", err
	}
	if err := zw.Close(); err != nil {
		return blob{}, "", err
	}
	b := newBlob(mediaType, buf.Bytes())
	b.desc.Annotations = maps.Clone(l.Annotations)
	if l.Corrupt {
		// Byte 4 is the low byte of the gzip header's MTIME, which
		// decompressors ignore.
		b.data = slices.Clone(b.data)
		b.data[4] ^= 0x01
	}
	return b, digest.NewDigestFromBytes(digest.SHA256, diff.Sum(nil)), nil
}

// ManifestDescriptor returns the descriptor of the manifest: its digest is
// the image's digest in a layout.
func (b *Built) ManifestDescriptor() ocispec.Descriptor { return b.manBlob.desc }

// ManifestBytes returns the manifest as written to a layout. The caller must
// not modify it.
func (b *Built) ManifestBytes() []byte { return b.manBlob.data }

// Manifest returns the image's manifest.
func (b *Built) Manifest() ocispec.Manifest {
	m := b.manifest
	m.Layers = slices.Clone(m.Layers)
	return m
}

// ConfigDescriptor returns the descriptor of the config: its digest is the
// image ID, the same in every form the image is written in.
func (b *Built) ConfigDescriptor() ocispec.Descriptor { return b.cfgBlob.desc }

// ConfigBytes returns the config as written. The caller must not modify it.
func (b *Built) ConfigBytes() []byte { return b.cfgBlob.data }

// Config returns the image config, with RootFS, History and labels filled.
func (b *Built) Config() ocispec.Image {
	c := b.config
	c.Config.Labels = maps.Clone(c.Config.Labels)
	c.RootFS.DiffIDs = slices.Clone(c.RootFS.DiffIDs)
	c.History = slices.Clone(c.History)
	return c
}

// Layers returns the layer descriptors, bottom first.
func (b *Built) Layers() []ocispec.Descriptor { return slices.Clone(b.manifest.Layers) }

// LayerBlob returns the stored bytes of layer i (deliberately wrong for a
// Corrupt layer), or nil when i is out of range. The caller must not modify
// it.
func (b *Built) LayerBlob(i int) []byte {
	if i < 0 || i >= len(b.layers) {
		return nil
	}
	return b.layers[i].data
}

// DiffIDs returns the digests of the layers' uncompressed tar streams.
func (b *Built) DiffIDs() []digest.Digest { return slices.Clone(b.diffIDs) }

// RefNames returns the names the image is written with.
func (b *Built) RefNames() []string { return slices.Clone(b.refNames) }

// blobs returns every blob once (config first, then layers in order,
// duplicates dropped; not the manifest).
func (b *Built) blobs() []blob {
	out := []blob{b.cfgBlob}
	seen := map[digest.Digest]bool{b.cfgBlob.desc.Digest: true}
	for _, l := range b.layers {
		if seen[l.desc.Digest] {
			continue
		}
		seen[l.desc.Digest] = true
		out = append(out, l)
	}
	return out
}
