package hostile

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"
	digest "github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Names Crossplane uses for its layers and labels.
const (
	annotationKey = "io.crossplane.xpkg"
	baseValue     = "base"
	labelPrefix   = annotationKey + ":"
	// emptyDiffID is written as the diff_id of layers whose uncompressed
	// content is not hashed (the bombs): readers do not verify diff_ids.
	emptyDiffID = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
)

// layerSpec describes one layer of an image the corpus writes.
type layerSpec struct {
	// mediaType is the descriptor's media type; it also decides the
	// compression applied to tar (gzip, zstd or none).
	mediaType string
	// annotation is the value of io.crossplane.xpkg, "" for none.
	annotation string
	// tar writes the layer's uncompressed tar.
	tar func(io.Writer) error
	// raw, when set, writes the blob bytes as they are (already
	// compressed), in place of tar.
	raw func(io.Writer) error
	// fast compresses a gzip layer at gzip.BestSpeed rather than
	// gzip.BestCompression: for cases of many small entries, whose size
	// does not matter but whose writing took a minute under the race
	// detector at the best level.
	fast bool
}

// baseLayer is a gzip layer annotated as the base layer.
func baseLayer(tar func(io.Writer) error) layerSpec {
	return layerSpec{mediaType: ocispec.MediaTypeImageLayerGzip, annotation: baseValue, tar: tar}
}

// image is the part of an image shared by the OCI and docker-archive
// writers: layer blobs and the config blob.
type image struct {
	specs   []layerSpec
	layers  []blob
	diffIDs []string
	config  blob
	// configValue is the config as written.
	configValue imageConfig
}

// imageConfig is the image config as Crossplane's build writes it: empty
// platform, layer annotations repeated as labels.
type imageConfig struct {
	Architecture string          `json:"architecture"`
	Created      string          `json:"created"`
	History      []historyEntry  `json:"history"`
	OS           string          `json:"os"`
	RootFS       rootFS          `json:"rootfs"`
	Config       containerConfig `json:"config"`
}

type historyEntry struct {
	Created string `json:"created"`
}

type rootFS struct {
	Type    string   `json:"type"`
	DiffIDs []string `json:"diff_ids"`
}

type containerConfig struct {
	Labels map[string]string `json:"Labels,omitempty"`
}

// writeImage stores the layers described by ls, and a config naming their
// annotations as labels, into l. editConfig, when not nil, changes the
// config before it is stored.
func writeImage(l *layout, ls []layerSpec, editConfig func(*imageConfig)) (*image, error) {
	im := &image{specs: ls}
	for _, s := range ls {
		b, diffID, err := writeLayer(l, s)
		if err != nil {
			return nil, err
		}
		im.layers = append(im.layers, b)
		im.diffIDs = append(im.diffIDs, diffID)
	}
	cfg := imageConfig{
		Created: "0001-01-01T00:00:00Z",
		RootFS:  rootFS{Type: "layers", DiffIDs: im.diffIDs},
	}
	for i, s := range ls {
		cfg.History = append(cfg.History, historyEntry{Created: "0001-01-01T00:00:00Z"})
		if s.annotation != "" {
			if cfg.Config.Labels == nil {
				cfg.Config.Labels = map[string]string{}
			}
			cfg.Config.Labels[labelPrefix+im.layers[i].Digest] = s.annotation
		}
	}
	if editConfig != nil {
		editConfig(&cfg)
	}
	im.configValue = cfg
	var err error
	if im.config, err = l.jsonBlob(cfg); err != nil {
		return nil, err
	}
	return im, nil
}

// writeLayer stores one layer and returns it with its diff_id.
func writeLayer(l *layout, s layerSpec) (blob, string, error) {
	if s.raw != nil {
		b, err := l.stream(s.raw)
		return b, emptyDiffID, err
	}
	diff := sha256.New()
	b, err := l.stream(func(w io.Writer) error {
		level := gzip.BestCompression
		if s.fast {
			level = gzip.BestSpeed
		}
		return compress(w, s.mediaType, level, func(cw io.Writer) error {
			return s.tar(io.MultiWriter(cw, diff))
		})
	})
	return b, "sha256:" + hex.EncodeToString(diff.Sum(nil)), err
}

// compress runs gen through the compression mediaType names, into w;
// level is gzip's.
func compress(w io.Writer, mediaType string, level int, gen func(io.Writer) error) error {
	switch {
	case strings.HasSuffix(mediaType, "gzip"):
		zw, err := gzip.NewWriterLevel(w, level)
		if err != nil {
			return err
		}
		if err := gen(zw); err != nil {
			return err
		}
		return zw.Close()
	case strings.HasSuffix(mediaType, "zstd"):
		zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		if err := gen(zw); err != nil {
			zw.Close()
			return err
		}
		return zw.Close()
	}
	return gen(w)
}

// descriptor returns the descriptor of b.
func descriptor(mediaType string, b blob) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.Digest(b.Digest), Size: b.Size}
}

// manifest returns the OCI manifest of im, layers annotated.
func (im *image) manifest() ocispec.Manifest {
	m := ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    descriptor(ocispec.MediaTypeImageConfig, im.config),
		Layers:    []ocispec.Descriptor{},
	}
	for i, s := range im.specs {
		d := descriptor(s.mediaType, im.layers[i])
		if s.annotation != "" {
			d.Annotations = map[string]string{annotationKey: s.annotation}
		}
		m.Layers = append(m.Layers, d)
	}
	return m
}

// indexOf returns an OCI index listing ds.
func indexOf(ds ...ocispec.Descriptor) ocispec.Index {
	return ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: ds,
	}
}

// ociHooks tamper with an OCI image while buildOCI writes it. Each is
// optional.
type ociHooks struct {
	// config edits the image config before it is stored.
	config func(*imageConfig)
	// manifest edits the manifest before it is stored.
	manifest func(*ocispec.Manifest, *image)
	// index edits index.json before it is written; manifest is the stored
	// manifest blob.
	index func(x *ocispec.Index, manifest blob)
	// after runs last and may change any file of the layout.
	after func(l *layout, im *image, manifest blob) error
}

// buildOCI writes an OCI layout at root holding one image of ls, applying
// hooks.
func buildOCI(ctx context.Context, root string, ls []layerSpec, hooks ociHooks) error {
	l, err := newLayout(ctx, root)
	if err != nil {
		return err
	}
	im, err := writeImage(l, ls, hooks.config)
	if err != nil {
		return err
	}
	m := im.manifest()
	if hooks.manifest != nil {
		hooks.manifest(&m, im)
	}
	mb, err := l.jsonBlob(m)
	if err != nil {
		return err
	}
	x := indexOf(descriptor(ocispec.MediaTypeImageManifest, mb))
	if hooks.index != nil {
		hooks.index(&x, mb)
	}
	if err := l.json("index.json", x); err != nil {
		return err
	}
	if hooks.after != nil {
		return hooks.after(l, im, mb)
	}
	return nil
}

// ociCase returns the Write function of a case that is an OCI layout (a
// directory, or a tar of one when k is KindOCILayoutTar) built by build,
// which receives the layout root to write.
func ociCase(name string, k SourceKind, build func(ctx context.Context, root string) error) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, k)
		if err != nil {
			return "", err
		}
		if k == KindOCILayoutDir {
			return out, build(ctx, out)
		}
		tmp, err := buildDir(dir, name)
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		if err := build(ctx, tmp); err != nil {
			return "", err
		}
		return out, packDir(ctx, tmp, out)
	}
}

// ociImageCase is ociCase for the common shape: one image of ls with hooks.
func ociImageCase(name string, k SourceKind, ls func() []layerSpec, hooks ociHooks) func(context.Context, string) (string, error) {
	return ociCase(name, k, func(ctx context.Context, root string) error {
		return buildOCI(ctx, root, ls(), hooks)
	})
}

// dockerManifest is one entry of a docker archive's manifest.json.
type dockerManifest struct {
	Config   string
	RepoTags []string
	Layers   []string
}

// xpkgHooks tamper with a docker archive while buildXpkg writes it.
type xpkgHooks struct {
	// config edits the image config before it is stored.
	config func(*imageConfig)
	// entries edits the archive's entries (config, layers, manifest.json
	// last) before they are written; the blob files under l may be changed
	// too.
	entries func(es []archiveEntry, l *layout, im *image) ([]archiveEntry, error)
}

// xpkgCase returns the Write function of a case that is a docker archive
// (".xpkg") of one image of ls, laid out as Crossplane's build lays it out:
// config "sha256:<hex>", layers "<hex>.tar.gz", manifest.json last.
func xpkgCase(name string, ls func() []layerSpec, hooks xpkgHooks) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindXpkg)
		if err != nil {
			return "", err
		}
		tmp, err := buildDir(dir, name)
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		l, err := newLayout(ctx, tmp)
		if err != nil {
			return "", err
		}
		im, err := writeImage(l, ls(), hooks.config)
		if err != nil {
			return "", err
		}
		dm := dockerManifest{Config: im.config.Digest}
		es := []archiveEntry{{name: im.config.Digest, path: l.path(im.config.Hex)}}
		for _, b := range im.layers {
			dm.Layers = append(dm.Layers, b.Hex+".tar.gz")
			es = append(es, archiveEntry{name: b.Hex + ".tar.gz", path: l.path(b.Hex)})
		}
		mj, err := json.Marshal([]dockerManifest{dm})
		if err != nil {
			return "", err
		}
		es = append(es, archiveEntry{name: "manifest.json", data: mj})
		if hooks.entries != nil {
			if es, err = hooks.entries(es, l, im); err != nil {
				return "", err
			}
		}
		return out, writeArchive(ctx, out, es)
	}
}

// packageYAMLLayer is a base layer holding content as package.yaml.
func packageYAMLLayer(content []byte) func() []layerSpec {
	return func() []layerSpec {
		return []layerSpec{baseLayer(tarOf(file("package.yaml", content)))}
	}
}

// flipByte inverts the bits of the byte at offset in the file at path
// (counted from the end when offset is negative).
func flipByte(path string, offset int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if offset < 0 {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		offset += fi.Size()
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], offset); err != nil {
		return err
	}
	b[0] ^= 0xff
	_, err = f.WriteAt(b[:], offset)
	return err
}
