package xpkg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Image holds what was learned from the image a package was read from.
type Image struct {
	// ManifestDigest is the digest of the image manifest: the image's
	// digest as a registry reports it. A .xpkg file has no manifest; its
	// digest is that of the Docker schema 2 manifest package oci synthesises
	// for it, which differs from the digest of the same image in a layout.
	ManifestDigest digest.Digest
	// Manifest is the image manifest, as written (or synthesised). Its
	// Config.Digest is the image ID: the same in a .xpkg file and in an
	// OCI layout.
	Manifest ocispec.Manifest
	// Config is the image config; zero when the config is not an image
	// config.
	Config ocispec.Image
	// Layers are the manifest's layers, bottom first, with their
	// io.crossplane.xpkg annotations recovered from the config labels where
	// the format drops them (a .xpkg file).
	Layers []ocispec.Descriptor
	// Platform is the platform of the manifest chosen from an index; nil
	// when the index had one manifest without a platform.
	Platform *ocispec.Platform
	// Tags are the RepoTags of a .xpkg file, or the ref names
	// (org.opencontainers.image.ref.name) of an OCI layout's index entries
	// that name the image.
	Tags []string
	// Format is the form the image was stored in; zero for OpenImage.
	Format oci.Format
	// Selection is how the package was found in the image: its base,
	// package and examples layers and the image facts the image lint rules
	// (XP5xx) read (linter/rules.LintPackage passes them to the linter).
	// PackageLayer is nil when the image has no package.yaml at its root
	// (Facts says what it has). Its Layers, the layers package.yaml is
	// read from, are shadowed by Image.Layers, every layer of the image.
	Selection
}

// OpenImage loads the package held by an image the caller has resolved
// (with oci.Resolve or oci.ResolveDescriptor, from any oci.Fetcher: a
// registry client, an oras-go store, a layout), as Open does for the images
// it finds: the layer selector (SelectLayer) chooses where package.yaml is,
// which is streamed into the parser, and the examples layer, if any, is
// parsed into Package.Examples.
//
// The Package's Kind is SourceImage and its Source the name given with
// WithSourceName. Errors are those of Open for images. Options:
// WithParserOptions, WithLimits, WithSourceName.
func OpenImage(ctx context.Context, f oci.Fetcher, img *oci.Image, opts ...Option) (*Package, error) {
	switch {
	case ctx == nil:
		return nil, errors.New("xpkg: OpenImage: nil context")
	case f == nil:
		return nil, errors.New("xpkg: OpenImage: nil fetcher")
	case img == nil:
		return nil, errors.New("xpkg: OpenImage: nil image")
	}
	c := newOpenConfig(opts)
	p, err := loadImage(ctx, f, img, c)
	if err != nil {
		return nil, &SourceError{Source: c.sourceName, SourceKind: SourceImage, Err: err}
	}
	p.SourceKind = SourceImage
	return p, nil
}

// openStore resolves the store's index to one image and loads it.
func openStore(ctx context.Context, s oci.Store, format oci.Format, c *openConfig) (*Package, error) {
	img, err := oci.Resolve(ctx, s, c.ociOptions()...)
	if err != nil {
		return nil, err
	}
	if format == oci.FormatDockerArchive {
		if err := checkLayerLabels(img); err != nil {
			return nil, err
		}
	}
	p, err := loadImage(ctx, s, img, c)
	if err != nil {
		return nil, err
	}
	p.Image.Format = format
	return p, nil
}

// checkLayerLabels checks that every layer label of a docker archive's
// config (LayerLabel) names one of its layers. A docker archive has no
// manifest: the digests of its layers are computed from the files, and the
// labels, written when the image was built, are the only record of what the
// layers' digests were. A label naming no layer means a layer's bytes changed
// since (or its annotation would be silently lost, and the image flattened).
func checkLayerLabels(img *oci.Image) error {
	have := make(map[string]bool, len(img.Manifest.Layers))
	for _, l := range img.Manifest.Layers {
		have[l.Digest.String()] = true
	}
	var missing []string
	for k := range img.Config.Config.Labels {
		d, ok := strings.CutPrefix(k, labelPrefix)
		if ok && !have[d] {
			missing = append(missing, d)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("%w: the config labels %s* name layers the archive does not hold (%s): a layer does not match the digest it was built with",
		oci.ErrDigestMismatch, labelPrefix, safetext.Join(missing, safetext.Token))
}

// loadImage selects the layers of img, parses its package.yaml and
// examples, and records the facts.
func loadImage(ctx context.Context, f oci.Fetcher, img *oci.Image, c *openConfig) (*Package, error) {
	sel, err := SelectLayer(img.Manifest.Layers, img.Config.Config.Labels)
	if err != nil && !errors.Is(err, ErrMultipleBaseLayers) {
		return nil, err
	}
	// Several base layers: package.yaml is read from the first, and the
	// facts make the linter report XP501 (see Open).
	sel.Facts.Source = c.sourceName

	var pkg *parser.Package
	file, err := sel.OpenPackageYAML(ctx, f, withConfig(c))
	switch {
	case err == nil:
		pkg, err = parser.Parse(ctx, file, c.parseOptions(PackageFile)...)
		cerr := file.Close()
		if err != nil {
			return nil, fmt.Errorf("xpkg: reading %s from layer %s: %w", PackageFile, file.Layer.Digest, err)
		}
		if cerr != nil {
			return nil, fmt.Errorf("xpkg: reading %s from layer %s: %w", PackageFile, file.Layer.Digest, cerr)
		}
	case errors.Is(err, ErrNoPackageYAML) && (len(sel.Facts.MisplacedPackageYAML) > 0 || sel.Facts.LegacyStack):
		// The image is not a package, and the facts say why: an empty
		// package whose lint reports it (XP503, XP504).
		pkg = &parser.Package{}
	default:
		return nil, err
	}

	p := &Package{
		Package: pkg,
		Source:  c.sourceName,
		Image: &Image{
			ManifestDigest: img.Descriptor.Digest,
			Manifest:       img.Manifest,
			Config:         img.Config,
			Layers:         annotateLayers(img.Manifest.Layers, img.Config.Config.Labels),
			Platform:       img.Platform,
			Tags:           img.RefNames,
			Selection:      *sel,
		},
	}
	if sel.ExamplesLayer != nil {
		if p.Examples, err = loadExamples(ctx, f, *sel.ExamplesLayer, c, pkg.Usage); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// loadExamples parses ExamplesFile of the examples layer; nil when the
// layer does not hold it.
// The examples count against the parser's limits on from used, the
// package's usage: one budget covers the upload.
func loadExamples(ctx context.Context, f oci.Fetcher, layer ocispec.Descriptor, c *openConfig, used parser.Usage) (*parser.Package, error) {
	file, err := oci.ReadLayerFile(ctx, f, layer, ExamplesFile, c.ociOptions()...)
	if errors.Is(err, oci.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("xpkg: reading examples: %w", err)
	}
	defer file.Close()
	ex, err := parser.Parse(ctx, file, append(c.parseOptions(ExamplesFile), parser.WithUsage(used))...)
	if err != nil {
		return nil, fmt.Errorf("xpkg: reading %s from layer %s: %w", ExamplesFile, layer.Digest, err)
	}
	return ex, nil
}

// withConfig passes an already built configuration on as an Option.
func withConfig(c *openConfig) Option {
	return func(dst *openConfig) { *dst = *c }
}
