package oci

import (
	"context"
	"encoding/json"
	"fmt"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// Image is one image manifest resolved from an index, with its config. Every
// blob it was built from was verified against its descriptor.
type Image struct {
	// Descriptor is the image manifest's descriptor as the index that chose
	// it wrote it (with its platform and annotations, if any). Its digest is
	// the manifest digest, the image's digest.
	Descriptor ocispec.Descriptor
	// Manifest is the parsed manifest, as written.
	Manifest ocispec.Manifest
	// RawManifest holds the manifest's bytes.
	RawManifest []byte
	// Config is the parsed image config. It is zero when the config is not
	// an OCI or Docker image config (an artifact's). Its OS and Architecture
	// are often empty (Crossplane writes them so) and are never checked.
	Config ocispec.Image
	// RawConfig holds the config's bytes; nil when it is not an image config.
	RawConfig []byte
	// Platform is the platform of the chosen manifest descriptor; nil when the
	// descriptor had none (a manifest alone in its index).
	Platform *ocispec.Platform
	// RefNames are the org.opencontainers.image.ref.name annotations (for a
	// docker archive: the RepoTags) of the top-level index entries that name
	// the chosen entry. Empty when Resolve was not given a Store.
	RefNames []string
	// Indexes are the descriptors of the nested indexes followed to reach the
	// manifest, outermost first. The first, when present, is the digest a
	// registry shows for a multi-platform image.
	Indexes []ocispec.Descriptor
}

// Resolve reads the top-level index of s and follows it to one image
// manifest:
//   - With WithReference, only the entries whose
//     org.opencontainers.image.ref.name equals the reference are considered
//     (ErrNotFound when none does).
//   - Entries with the same digest count once. Zero entries is ErrEmptyIndex;
//     one is used whatever its platform; among several, the first whose
//     platform matches (WithPlatform, default linux/amd64) wins, variants
//     compared as the image spec describes, and an entry with no platform
//     never matches. No match is ErrNoMatchingPlatform, listing what is there.
//   - Nested indexes (OCI or Docker manifest list) are followed the same way,
//     at most MaxIndexDepth deep, and an index met twice is an error.
//   - OCI and Docker schema 2 manifests are accepted. The config is read when
//     it is an image config; its platform is never checked.
//
// Every manifest, index and config is read verified and bounded
// (MaxManifestBytes, MaxConfigBytes).
func Resolve(ctx context.Context, s Store, opts ...Option) (*Image, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, opError("resolve", ocispec.Descriptor{}, "", err)
	}
	if s == nil {
		return nil, opError("resolve", ocispec.Descriptor{}, "", fmt.Errorf("%w: nil Store", ErrInvalidArgument))
	}
	o := newOptions(opts)
	idx, err := s.Index(ctx)
	if err != nil {
		return nil, opError("resolve", ocispec.Descriptor{}, "", err)
	}
	cands := idx.Manifests
	if o.reference != "" {
		cands = nil
		var names []string
		for i, d := range idx.Manifests {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, opError("resolve", ocispec.Descriptor{}, "", err)
				}
			}
			n := d.Annotations[ocispec.AnnotationRefName]
			if n == o.reference {
				cands = append(cands, d)
			}
			if n != "" {
				names = append(names, n)
			}
		}
		if len(cands) == 0 {
			return nil, opError("resolve", ocispec.Descriptor{}, "", fmt.Errorf("%w: reference %s (index names %s)", ErrNotFound, safetext.Quote(o.reference), safetext.Join(names, safetext.Quote)))
		}
	}
	d, err := choose(ctx, cands, o.platform)
	if err != nil {
		return nil, opError("resolve", ocispec.Descriptor{}, "", err)
	}
	r := resolver{f: s, o: o, visited: map[digest.Digest]bool{}}
	img, err := r.follow(ctx, d, 1)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{} // linear, however many names the index repeats
	for i, m := range idx.Manifests {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, opError("resolve", ocispec.Descriptor{}, "", err)
			}
		}
		if n := m.Annotations[ocispec.AnnotationRefName]; m.Digest == d.Digest && n != "" && !seen[n] {
			seen[n] = true
			img.RefNames = append(img.RefNames, n)
		}
	}
	return img, nil
}

// ResolveDescriptor follows desc (an image manifest, or an index chosen from
// as Resolve does) to one image manifest, fetching through f. It suits
// fetchers with their own tag resolution (a registry client, an oras-go
// store). Options: WithPlatform, WithLimits.
func ResolveDescriptor(ctx context.Context, f Fetcher, desc ocispec.Descriptor, opts ...Option) (*Image, error) {
	if err := checkCtx(ctx); err != nil {
		return nil, opError("resolve", desc, "", err)
	}
	if f == nil {
		return nil, opError("resolve", desc, "", fmt.Errorf("%w: nil Fetcher", ErrInvalidArgument))
	}
	r := resolver{f: f, o: newOptions(opts), visited: map[digest.Digest]bool{}}
	return r.follow(ctx, desc, 0)
}

type resolver struct {
	f       Fetcher
	o       options
	visited map[digest.Digest]bool
	indexes []ocispec.Descriptor
}

// follow resolves desc; depth counts the indexes read so far.
func (r *resolver) follow(ctx context.Context, desc ocispec.Descriptor, depth int) (*Image, error) {
	fail := func(err error) (*Image, error) { return nil, opError("resolve", desc, "", err) }
	mt := desc.MediaType
	if mt != "" && !isIndexType(mt) && !isManifestType(mt) {
		return fail(ErrUnsupportedMediaType)
	}
	raw, err := readBlob(ctx, r.f, desc, "MaxManifestBytes", r.o.limits.MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	var head struct {
		MediaType string          `json:"mediaType"`
		Manifests json.RawMessage `json:"manifests"`
	}
	if err := unmarshalStrict(ctx, raw, &head); err != nil { // checks the keys for image and parseIndex
		return fail(jsonErr("", err))
	}
	switch {
	case mt == "" && head.MediaType != "":
		mt = head.MediaType
	case mt == "" && head.Manifests != nil:
		mt = ocispec.MediaTypeImageIndex
	case mt == "":
		mt = ocispec.MediaTypeImageManifest
	case head.MediaType != "" && head.MediaType != mt:
		return fail(fmt.Errorf("%w: descriptor says %s, content says %s", ErrMalformed, safetext.Token(mt), safetext.Token(head.MediaType)))
	}
	switch {
	case isManifestType(mt):
		return r.image(ctx, desc, raw)
	case isIndexType(mt):
	default:
		return fail(ErrUnsupportedMediaType)
	}
	depth++
	if depth > r.o.limits.MaxIndexDepth {
		return fail(limitErr(limitval.MaxIndexDepth, r.o.limits.MaxIndexDepth))
	}
	if r.visited[desc.Digest] {
		return fail(fmt.Errorf("%w: index refers to itself", ErrMalformed))
	}
	r.visited[desc.Digest] = true
	idx, err := parseIndex(raw)
	if err != nil {
		return fail(err)
	}
	child, err := choose(ctx, idx.Manifests, r.o.platform)
	if err != nil {
		return fail(err)
	}
	r.indexes = append(r.indexes, desc)
	return r.follow(ctx, child, depth)
}

// image builds the Image of the manifest desc whose bytes are raw.
func (r *resolver) image(ctx context.Context, desc ocispec.Descriptor, raw []byte) (*Image, error) {
	fail := func(err error) (*Image, error) { return nil, opError("resolve", desc, "", err) }
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return fail(fmt.Errorf("%w: manifest: %v", ErrMalformed, err))
	}
	if m.SchemaVersion != 2 {
		return fail(fmt.Errorf("%w: manifest schemaVersion %d, want 2", ErrMalformed, m.SchemaVersion))
	}
	if len(m.Layers) > r.o.limits.MaxLayers {
		return fail(limitErr(limitval.MaxLayers, r.o.limits.MaxLayers))
	}
	img := &Image{
		Descriptor:  desc,
		Manifest:    m,
		RawManifest: raw,
		Platform:    desc.Platform,
		Indexes:     r.indexes,
	}
	switch m.Config.MediaType {
	case ocispec.MediaTypeImageConfig, mediaTypeDockerConfig:
		cfg, err := readBlob(ctx, r.f, m.Config, "MaxConfigBytes", r.o.limits.MaxConfigBytes)
		if err != nil {
			return nil, err
		}
		if err := unmarshalStrict(ctx, cfg, &img.Config); err != nil {
			return nil, opError("resolve", m.Config, "", jsonErr("config", err))
		}
		img.RawConfig = cfg
	}
	return img, nil
}
