package oci

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"strings"

	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// The Crossplane CLI's convention for keeping layer annotations in a docker
// archive, which has no place for them: image config label
// "io.crossplane.xpkg:sha256:<layer digest>" = annotation value.
const (
	xpkgAnnotation  = "io.crossplane.xpkg"
	xpkgLabelPrefix = xpkgAnnotation + ":"
)

const dockerManifestFile = "manifest.json"

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// DockerArchive is a Store over a docker-archive tar (as written by
// `docker save`, go-containerregistry's tarball.Write and the Crossplane CLI
// for .xpkg files): manifest.json lists, per image, a Config path, RepoTags
// and Layers paths.
//
// It presents each image as a Docker schema 2 manifest it synthesises: the
// config and layer descriptors carry the SHA-256 digests of the archive's
// files, computed when the archive is opened by streaming each file once (no
// file is held in memory but the config); layer media types are sniffed from
// content (gzip, zstd or plain tar). Layer annotations "io.crossplane.xpkg"
// are recovered from the config labels "io.crossplane.xpkg:sha256:<digest>".
// Index returns one descriptor per RepoTag (annotated
// org.opencontainers.image.ref.name with the tag as written), or one without
// a name for an image with no tags. The manifest digest is that of the
// synthesised manifest, so it differs from the digest the same image has in a
// registry or an OCI layout; config and layer digests are the same. A
// DockerArchive is safe for concurrent use.
type DockerArchive struct {
	fsys  fs.FS
	index ocispec.Index
	blobs map[digest.Digest]archiveBlob
}

// archiveBlob is where a blob of a docker archive is: a file or bytes.
type archiveBlob struct {
	path string
	data []byte
}

type dockerManifestEntry struct {
	Config   string
	RepoTags []string
	Layers   []string
}

// NewDockerArchive indexes the docker archive in r (plain or gzip-compressed
// tar; see NewLayoutTar for what each costs) and hashes its config and layers.
// Options: WithLimits.
func NewDockerArchive(ctx context.Context, r io.ReaderAt, size int64, opts ...Option) (*DockerArchive, error) {
	o := newOptions(opts)
	t, err := indexTar(ctx, r, size, o.limits)
	if err != nil {
		return nil, opError("open", ocispec.Descriptor{}, "", err)
	}
	return newDockerArchive(ctx, t, o.limits)
}

func newDockerArchive(ctx context.Context, fsys fs.FS, lim Limits) (*DockerArchive, error) {
	fail := func(p string, err error) (*DockerArchive, error) {
		return nil, opError("open", ocispec.Descriptor{}, p, err)
	}
	b, err := readFSFile(fsys, dockerManifestFile, "MaxManifestSize", lim.MaxManifestSize)
	if err != nil {
		return fail(dockerManifestFile, err)
	}
	var entries []dockerManifestEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		return fail(dockerManifestFile, fmt.Errorf("%w: %v", ErrMalformed, err))
	}
	a := &DockerArchive{
		fsys:  fsys,
		index: ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}},
		blobs: map[digest.Digest]archiveBlob{},
	}
	layers := map[string]ocispec.Descriptor{} // by path, hashed once
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return fail("", err)
		}
		if int64(len(e.Layers)) > lim.MaxLayers {
			return fail(dockerManifestFile, limitErr("MaxLayers", lim.MaxLayers))
		}
		cfgPath, ok := CleanPath(e.Config)
		if !ok {
			return fail(e.Config, fmt.Errorf("%w: config path", ErrUnsafePath))
		}
		cfg, err := readFSFile(fsys, cfgPath, "MaxConfigSize", lim.MaxConfigSize)
		if err != nil {
			return fail(cfgPath, err)
		}
		var labels struct {
			Config struct {
				Labels map[string]string `json:"Labels"`
			} `json:"config"`
		}
		if err := json.Unmarshal(cfg, &labels); err != nil {
			return fail(cfgPath, fmt.Errorf("%w: config: %v", ErrMalformed, err))
		}
		m := ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2},
			MediaType: MediaTypeDockerManifest,
			Config:    ocispec.Descriptor{MediaType: MediaTypeDockerConfig, Digest: digest.FromBytes(cfg), Size: int64(len(cfg))},
			Layers:    make([]ocispec.Descriptor, 0, len(e.Layers)),
		}
		a.blobs[m.Config.Digest] = archiveBlob{path: cfgPath}
		for _, lp := range e.Layers {
			p, ok := CleanPath(lp)
			if !ok {
				return fail(lp, fmt.Errorf("%w: layer path", ErrUnsafePath))
			}
			d, ok := layers[p]
			if !ok {
				if d, err = hashArchiveFile(ctx, fsys, p, lim.MaxBlobSize); err != nil {
					return fail(p, err)
				}
				layers[p] = d
				a.blobs[d.Digest] = archiveBlob{path: p}
			}
			m.Layers = append(m.Layers, d)
		}
		m.Layers = annotateFromLabels(m.Layers, labels.Config.Labels)
		mb, err := json.Marshal(m)
		if err != nil {
			return fail(dockerManifestFile, err)
		}
		md := ocispec.Descriptor{MediaType: MediaTypeDockerManifest, Digest: digest.FromBytes(mb), Size: int64(len(mb))}
		a.blobs[md.Digest] = archiveBlob{data: mb}
		if len(e.RepoTags) == 0 {
			a.index.Manifests = append(a.index.Manifests, md)
		}
		for _, tag := range e.RepoTags {
			d := md
			d.Annotations = map[string]string{ocispec.AnnotationRefName: tag}
			a.index.Manifests = append(a.index.Manifests, d)
		}
	}
	return a, nil
}

// hashArchiveFile streams one file of fsys to compute its descriptor.
func hashArchiveFile(ctx context.Context, fsys fs.FS, name string, limit int64) (ocispec.Descriptor, error) {
	f, err := fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w: %v", ErrNotFound, err)
		}
		return ocispec.Descriptor{}, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(4)
	mt := ocispec.MediaTypeImageLayer
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		mt = MediaTypeDockerLayer
	case bytes.HasPrefix(head, zstdMagic):
		mt = ocispec.MediaTypeImageLayerZstd
	}
	h := sha256.New()
	n, err := io.Copy(h, &ctxReader{ctx: ctx, r: io.LimitReader(br, limit+1)})
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	if n > limit {
		return ocispec.Descriptor{}, limitErr("MaxBlobSize", limit)
	}
	return ocispec.Descriptor{MediaType: mt, Digest: digest.NewDigest(digest.SHA256, h), Size: n}, nil
}

// annotateFromLabels returns layers with the "io.crossplane.xpkg" annotation
// recovered from config labels "io.crossplane.xpkg:<layer digest>", on layers
// that do not carry it already. layers is not modified.
func annotateFromLabels(layers []ocispec.Descriptor, labels map[string]string) []ocispec.Descriptor {
	var out []ocispec.Descriptor
	for k, v := range labels {
		d, ok := strings.CutPrefix(k, xpkgLabelPrefix)
		if !ok {
			continue
		}
		for i, l := range layers {
			if string(l.Digest) != d {
				continue
			}
			if _, has := l.Annotations[xpkgAnnotation]; has {
				continue
			}
			if out == nil {
				out = append([]ocispec.Descriptor(nil), layers...)
			}
			ann := maps.Clone(out[i].Annotations)
			if ann == nil {
				ann = map[string]string{}
			}
			ann[xpkgAnnotation] = v
			out[i].Annotations = ann
		}
	}
	if out == nil {
		return layers
	}
	return out
}

// Index returns the index the archive's manifest.json stands for.
func (a *DockerArchive) Index(ctx context.Context) (ocispec.Index, error) {
	if err := ctx.Err(); err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, dockerManifestFile, err)
	}
	idx := a.index
	idx.Manifests = append([]ocispec.Descriptor(nil), a.index.Manifests...)
	return idx, nil
}

// Fetch returns a synthesised manifest, or the config or layer file whose
// digest desc names. The bytes are not verified here; the readers of this
// package verify them.
func (a *DockerArchive) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, opError("fetch", desc, "", err)
	}
	b, ok := a.blobs[desc.Digest]
	if !ok {
		return nil, opError("fetch", desc, "", ErrNotFound)
	}
	if b.data != nil {
		return io.NopCloser(bytes.NewReader(b.data)), nil
	}
	f, err := a.fsys.Open(b.path)
	if err != nil {
		return nil, opError("fetch", desc, b.path, err)
	}
	return f, nil
}

// ctxReader fails reads once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
