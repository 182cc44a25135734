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
	"path"
	"strings"

	digest "github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/ctxio"
	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/tarpath"
)

const dockerManifestFile = "manifest.json"

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// dockerArchive is a Store over a docker-archive tar, OpenReaderAt's
// FormatDockerArchive (as written by
// `docker save`, go-containerregistry's tarball.Write and the Crossplane CLI
// for .xpkg files): manifest.json lists, per image, a Config path, RepoTags
// and Layers paths.
//
// It presents each image as a Docker schema 2 manifest it synthesises: the
// config and layer descriptors carry the SHA-256 digests of the archive's
// files (or those their names encode, see below), computed when the archive
// is opened by streaming each file once (no file is held in memory but the
// config); layer media types are sniffed from
// content (gzip, zstd or plain tar). The format has no place for layer
// annotations; a tool that keeps them records each as a config label
// "<annotation key>:<layer digest>" = value (the Crossplane CLI does, for
// its io.crossplane.xpkg annotations), and the synthesised layer
// descriptors carry the annotations such labels record, so that an image
// written with them has the digest it had before (what the labels mean is
// the tool's: package xpkg's layer selector reads Crossplane's).
// Index returns one descriptor per RepoTag (annotated
// org.opencontainers.image.ref.name with the tag as written), or one without
// a name for an image with no tags. The manifest digest is that of the
// synthesised manifest, so it differs from the digest the same image has in a
// registry or an OCI layout; config and layer digests are the same. It is
// safe for concurrent use.
//
// An entry whose name encodes a SHA-256 digest ("sha256:<hex>" and
// "<hex>.json" for configs, "<hex>.tar.gz", "<hex>.tar" and
// "blobs/sha256/<hex>" for layers: the conventions of the Crossplane CLI,
// go-containerregistry and docker) is described by that digest, and its
// content, hashed when the archive is opened, must match it. When it does
// not, the archive still opens, but fetching the blob (and so reading the
// layer, or resolving the image for a config) fails with ErrDigestMismatch,
// in an *Error with Op "verify", the digest the name claims and the entry's
// Path. Other names (docker's "<layer id>/layer.tar")
// are described by the digest of their content. The config's
// rootfs.diff_ids are not checked against the layers: that would take
// decompressing every layer in full.
type dockerArchive struct {
	fsys   fs.FS
	index  ocispec.Index
	blobs  map[digest.Digest]archiveBlob
	closer io.Closer
}

// Close releases the spool of a gzip-compressed archive (see
// OpenReaderAt). It may be called more than once.
func (a *dockerArchive) Close() error {
	if a == nil || a.closer == nil {
		return nil
	}
	c := a.closer
	a.closer = nil
	return c.Close()
}

// archiveBlob is where a blob of a docker archive is: a file or bytes.
// mismatch is the digest of the file's content when its name claims another.
type archiveBlob struct {
	path     string
	data     []byte
	mismatch digest.Digest
}

type dockerManifestEntry struct {
	Config   string
	RepoTags []string
	Layers   []string
}

// newDockerArchive indexes the docker archive whose entries fsys holds and
// hashes its config and layers. Each config is read and parsed once, however
// many entries of manifest.json name it, and each layer file hashed once.
// Limits: MaxManifestBytes, MaxArchiveImages, MaxConfigBytes, MaxLayers,
// MaxBlobBytes.
func newDockerArchive(ctx context.Context, fsys fs.FS, lim Limits) (*dockerArchive, error) {
	fail := func(p string, err error) (*dockerArchive, error) {
		return nil, opError("open", ocispec.Descriptor{}, p, err)
	}
	b, err := readFSFile(fsys, dockerManifestFile, "MaxManifestBytes", lim.MaxManifestBytes)
	if err != nil {
		return fail(dockerManifestFile, err)
	}
	var entries []dockerManifestEntry
	if err := unmarshalStrict(ctx, b, &entries); err != nil {
		return fail(dockerManifestFile, jsonErr("", err))
	}
	a := &dockerArchive{
		fsys:  fsys,
		index: ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}},
		blobs: map[digest.Digest]archiveBlob{},
	}
	images := 0
	for _, e := range entries {
		images += max(1, len(e.RepoTags))
		if images > lim.MaxArchiveImages {
			return fail(dockerManifestFile, fmt.Errorf("%d entries: %w", len(entries), limitErr(limitval.MaxArchiveImages, lim.MaxArchiveImages)))
		}
	}
	buf := make([]byte, 256<<10)              // for hashing layers
	layers := map[string]ocispec.Descriptor{} // by path, hashed once
	configs := map[string]archiveConfig{}     // by path, read and parsed once
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return fail("", err)
		}
		if len(e.Layers) > lim.MaxLayers {
			return fail(dockerManifestFile, limitErr(limitval.MaxLayers, lim.MaxLayers))
		}
		cfgPath, ok := tarpath.Clean(e.Config)
		if !ok {
			return fail(e.Config, fmt.Errorf("%w: config path", ErrUnsafePath))
		}
		cfg, ok := configs[cfgPath]
		if !ok {
			if cfg, err = a.readConfig(ctx, fsys, cfgPath, lim); err != nil {
				return fail(cfgPath, err)
			}
			configs[cfgPath] = cfg
		}
		m := ocispec.Manifest{
			Versioned: specs.Versioned{SchemaVersion: 2},
			MediaType: mediaTypeDockerManifest,
			Config:    cfg.desc,
			Layers:    make([]ocispec.Descriptor, 0, len(e.Layers)),
		}
		for _, lp := range e.Layers {
			if err := ctx.Err(); err != nil {
				return fail("", err)
			}
			p, ok := tarpath.Clean(lp)
			if !ok {
				return fail(lp, fmt.Errorf("%w: layer path", ErrUnsafePath))
			}
			d, ok := layers[p]
			if !ok {
				if d, err = hashArchiveFile(ctx, fsys, p, lim.MaxBlobBytes, buf); err != nil {
					return fail(p, err)
				}
				d.Digest = a.addFile(p, d.Digest)
				layers[p] = d
			}
			m.Layers = append(m.Layers, d)
		}
		m.Layers = annotateFromLabels(m.Layers, cfg.labels)
		mb, err := json.Marshal(m)
		if err != nil {
			return fail(dockerManifestFile, err)
		}
		md := ocispec.Descriptor{MediaType: mediaTypeDockerManifest, Digest: digest.FromBytes(mb), Size: int64(len(mb))}
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

// archiveConfig is an image config of a docker archive, read once however
// many entries of manifest.json name it.
type archiveConfig struct {
	desc   ocispec.Descriptor
	labels map[string]string // the config's labels
}

// readConfig reads, hashes and parses the config at p and registers it.
func (a *dockerArchive) readConfig(ctx context.Context, fsys fs.FS, p string, lim Limits) (archiveConfig, error) {
	b, err := readFSFile(fsys, p, "MaxConfigBytes", lim.MaxConfigBytes)
	if err != nil {
		return archiveConfig{}, err
	}
	var cfg struct {
		Config struct {
			Labels map[string]string `json:"Labels"`
		} `json:"config"`
	}
	if err := unmarshalStrict(ctx, b, &cfg); err != nil {
		return archiveConfig{}, jsonErr("config", err)
	}
	d := ocispec.Descriptor{MediaType: mediaTypeDockerConfig, Digest: digest.FromBytes(b), Size: int64(len(b))}
	d.Digest = a.addFile(p, d.Digest)
	return archiveConfig{desc: d, labels: cfg.Config.Labels}, nil
}

// hashArchiveFile streams one file of fsys to compute its descriptor.
// buf is the copy buffer: large, so that a spooled archive is read in few
// system calls, and shared by the calls of one opening.
func hashArchiveFile(ctx context.Context, fsys fs.FS, name string, maxSize int64, buf []byte) (ocispec.Descriptor, error) {
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
		mt = mediaTypeDockerLayer
	case bytes.HasPrefix(head, zstdMagic):
		mt = ocispec.MediaTypeImageLayerZstd
	}
	h := sha256.New()
	// f is a file of the archive, read at once: the context is checked
	// between reads (ctxio.Check), and no read is left behind under the
	// deferred Close.
	n, err := io.CopyBuffer(h, ctxio.Check(ctx, io.LimitReader(br, maxSize+1)), buf)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	if n > maxSize {
		return ocispec.Descriptor{}, limitErr(limitval.MaxBlobBytes, maxSize)
	}
	return ocispec.Descriptor{MediaType: mt, Digest: digest.NewDigest(digest.SHA256, h), Size: n}, nil
}

// namedDigest returns the SHA-256 digest the name of an archive entry
// encodes, if it encodes one: "sha256:<hex>", "<hex>.json", "<hex>.tar.gz",
// "<hex>.tar" (in any directory) or "blobs/sha256/<hex>", with <hex> 64
// lowercase hexadecimal digits.
func namedDigest(name string) (digest.Digest, bool) {
	dir, base := path.Split(name)
	var hex string
	switch {
	case strings.HasPrefix(base, "sha256:"):
		hex = base[len("sha256:"):]
	case strings.HasSuffix(base, ".tar.gz"):
		hex = strings.TrimSuffix(base, ".tar.gz")
	case strings.HasSuffix(base, ".tar"):
		hex = strings.TrimSuffix(base, ".tar")
	case strings.HasSuffix(base, ".json"):
		hex = strings.TrimSuffix(base, ".json")
	case dir == "blobs/sha256/" || strings.HasSuffix(dir, "/blobs/sha256/"):
		hex = base
	default:
		return "", false
	}
	if len(hex) != 64 || strings.TrimLeft(hex, "0123456789abcdef") != "" {
		return "", false
	}
	return digest.NewDigestFromEncoded(digest.SHA256, hex), true
}

// addFile registers the entry at p, whose content hashes to got, and returns
// the digest that describes it: the one its name encodes, if any, else got.
// An entry whose content does not match its name does not replace an entry
// that holds the digest.
func (a *dockerArchive) addFile(p string, got digest.Digest) digest.Digest {
	d, ok := namedDigest(p)
	if !ok {
		d = got
	}
	b := archiveBlob{path: p}
	if d != got {
		b.mismatch = got
	}
	if old, ok := a.blobs[d]; !ok || old.mismatch != "" {
		a.blobs[d] = b
	}
	return d
}

// annotateFromLabels sets on the synthesised layers (which carry no
// annotations) the annotations that config labels "<key>:<layer digest>"
// record. The layers of one digest share one annotation map, built once, so
// the cost is linear in the layers and the labels' length.
func annotateFromLabels(layers []ocispec.Descriptor, labels map[string]string) []ocispec.Descriptor {
	if len(labels) == 0 || len(layers) == 0 {
		return layers
	}
	have := make(map[digest.Digest]bool, len(layers))
	for _, l := range layers {
		have[l.Digest] = true
	}
	var byDigest map[digest.Digest]map[string]string
	for k, v := range labels {
		// A digest is "algorithm:encoded", with no ':' in the encoding.
		j := strings.LastIndexByte(k, ':')
		if j < 0 {
			continue
		}
		i := strings.LastIndexByte(k[:j], ':')
		if i <= 0 {
			continue
		}
		d := digest.Digest(k[i+1:])
		if !have[d] {
			continue
		}
		if byDigest == nil {
			byDigest = map[digest.Digest]map[string]string{}
		}
		if byDigest[d] == nil {
			byDigest[d] = map[string]string{}
		}
		byDigest[d][k[:i]] = v
	}
	for n := range layers {
		if ann, ok := byDigest[layers[n].Digest]; ok {
			layers[n].Annotations = ann
		}
	}
	return layers
}

// Index returns the index the archive's manifest.json stands for.
func (a *dockerArchive) Index(ctx context.Context) (ocispec.Index, error) {
	if err := ctxErr(ctx); err != nil {
		return ocispec.Index{}, opError("index", ocispec.Descriptor{}, dockerManifestFile, err)
	}
	idx := a.index
	idx.Manifests = append([]ocispec.Descriptor(nil), a.index.Manifests...)
	return idx, nil
}

// Fetch returns a synthesised manifest, or the config or layer file whose
// digest desc names. The bytes are not verified here (the readers of this
// package verify them), but a file whose content was found, when the archive
// was opened, not to match the digest its name encodes fails with
// ErrDigestMismatch.
func (a *dockerArchive) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, opError("fetch", desc, "", err)
	}
	b, ok := a.blobs[desc.Digest]
	if !ok {
		return nil, opError("fetch", desc, "", ErrNotFound)
	}
	if b.data != nil {
		return io.NopCloser(bytes.NewReader(b.data)), nil
	}
	if b.mismatch != "" {
		return nil, &Error{Op: "verify", Descriptor: desc, Path: b.path,
			Err: fmt.Errorf("%w: its content hashes to %s", ErrDigestMismatch, b.mismatch)}
	}
	f, err := a.fsys.Open(b.path)
	if err != nil {
		return nil, opError("fetch", desc, b.path, err)
	}
	return f, nil
}
