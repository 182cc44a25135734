package xpkg

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/tarpath"
	"github.com/xpkgkit/xpkgkit/oci"
)

// legacyStackFile is the file that gives away an image in the defunct v1
// "stack" format, Crossplane's first package format.
const legacyStackFile = ".registry/app.yaml"

// maxMisplaced bounds how many misplaced package.yaml files are named.
const maxMisplaced = 16

var (
	// ErrMultipleBaseLayers: more than one layer is annotated
	// io.crossplane.xpkg: base. Errors of this class are *BaseLayersError.
	ErrMultipleBaseLayers = errors.New("xpkg: more than one base layer")
	// ErrNoPackageYAML: the image has no package.yaml at the root of its
	// base layer (or of its flattened filesystem).
	ErrNoPackageYAML = errors.New("xpkg: no " + PackageFile + " at the root of the image")
)

// BaseLayersError reports an image with several layers annotated
// io.crossplane.xpkg: base. It matches ErrMultipleBaseLayers.
type BaseLayersError struct {
	// Layers are the base layers, in manifest order.
	Layers []ocispec.Descriptor
}

// Error implements error.
func (e *BaseLayersError) Error() string {
	ds := make([]string, len(e.Layers))
	for i, l := range e.Layers {
		ds[i] = l.Digest.String()
	}
	return fmt.Sprintf("xpkg: %d layers are annotated %s: %s (%s); at most one may be", len(e.Layers), AnnotationKey, AnnotationBase, strings.Join(ds, ", "))
}

// Is reports whether target is ErrMultipleBaseLayers.
func (e *BaseLayersError) Is(target error) bool { return target == ErrMultipleBaseLayers }

// Selection is the layer selector's decision for one image: which layer
// holds package.yaml, or that it comes from the flattened filesystem, and
// the facts the image lint rules (XP5xx) read.
type Selection struct {
	// BaseLayer is the layer annotated io.crossplane.xpkg: base; nil when
	// none is and package.yaml comes from the flattened filesystem. With
	// several base layers it is the first (see SelectLayer).
	BaseLayer *ocispec.Descriptor
	// Layers are the layers package.yaml is read from: BaseLayer alone, or every
	// layer of the image, bottom first, when flattening.
	Layers []ocispec.Descriptor
	// ExamplesLayer is the first layer annotated io.crossplane.xpkg with
	// AnnotationExamples (Crossplane's examples layer, holding
	// ExamplesFile); nil when there is none.
	ExamplesLayer *ocispec.Descriptor
	// Facts are the image facts for the linter (linter/rules.WithImageFacts).
	// SelectLayer fills BaseLayers and OtherLayers; OpenPackageYAML fills
	// Flattened and PackageYAMLPath, and, when package.yaml is missing,
	// MisplacedPackageYAML and LegacyStack.
	Facts ImageFacts
	// PackageLayer is the layer package.yaml was read from, set by
	// OpenPackageYAML: BaseLayer, or the layer of the flattened filesystem that
	// decided.
	PackageLayer *ocispec.Descriptor
}

// SelectLayer decides where the package.yaml of an image is to be read
// from, given its layers (bottom first, as in a manifest:
// oci.Image.Manifest.Layers) and its config's labels
// (oci.Image.Config.Config.Labels; nil when there are none). A layer's AnnotationKey value is its descriptor's annotation,
// or, where the descriptor has none, the label LayerLabel(digest): the
// record the Crossplane CLI keeps in formats that drop layer annotations (a
// docker archive, a .xpkg file). Then:
//
//   - the one layer annotated io.crossplane.xpkg: base;
//   - when no layer is, the flattened filesystem of every layer;
//   - when several are, an error: a *BaseLayersError matching
//     ErrMultipleBaseLayers.
//
// Layers annotated with another value are not the package; they are listed
// in Facts.OtherLayers, and the first annotated AnnotationExamples is
// ExamplesLayer. The descriptors of the Selection carry the annotations
// recovered from labels.
//
// With several base layers, SelectLayer returns the error and also a
// Selection whose BaseLayer is the first of them and whose Facts.BaseLayers lists
// them all, so that a caller that wants to report the problem as a lint
// diagnostic (XP501) rather than fail can go on, as Open does. A caller that
// does not want that treats the error as final. SelectLayer does no I/O; see
// OpenPackageYAML.
func SelectLayer(layers []ocispec.Descriptor, labels map[string]string) (*Selection, error) {
	layers = annotateLayers(layers, labels)
	s := &Selection{}
	var bases []ocispec.Descriptor
	for i := range layers {
		l := layers[i]
		v, ok := l.Annotations[AnnotationKey]
		switch {
		case !ok:
		case v == AnnotationBase:
			bases = append(bases, l)
			s.Facts.BaseLayers = append(s.Facts.BaseLayers, l.Digest.String())
		default:
			s.Facts.OtherLayers = append(s.Facts.OtherLayers, LayerFact{Digest: l.Digest.String(), Annotation: v})
			if v == AnnotationExamples && s.ExamplesLayer == nil {
				s.ExamplesLayer = &l
			}
		}
	}
	switch len(bases) {
	case 0:
		s.Layers = append([]ocispec.Descriptor(nil), layers...)
		return s, nil
	case 1:
		s.BaseLayer = &bases[0]
		s.Layers = bases[:1:1]
		return s, nil
	}
	s.BaseLayer = &bases[0]
	s.Layers = bases[:1:1]
	return s, &BaseLayersError{Layers: bases}
}

// annotateLayers returns layers with the AnnotationKey annotation recovered
// from the labels LayerLabel(<layer digest>) on layers that do not carry
// it already. layers is not modified. Its cost is linear in the layers and
// the labels.
func annotateLayers(layers []ocispec.Descriptor, labels map[string]string) []ocispec.Descriptor {
	var byDigest map[string]string
	for k, v := range labels {
		if d, ok := strings.CutPrefix(k, labelPrefix); ok {
			if byDigest == nil {
				byDigest = map[string]string{}
			}
			byDigest[d] = v
		}
	}
	if len(byDigest) == 0 {
		return layers
	}
	var out []ocispec.Descriptor
	for i, l := range layers {
		v, ok := byDigest[l.Digest.String()]
		if !ok {
			continue
		}
		if _, has := l.Annotations[AnnotationKey]; has {
			continue
		}
		if out == nil {
			out = slices.Clone(layers)
		}
		ann := maps.Clone(out[i].Annotations)
		if ann == nil {
			ann = map[string]string{}
		}
		ann[AnnotationKey] = v
		out[i].Annotations = ann
	}
	if out == nil {
		return layers
	}
	return out
}

// OpenPackageYAML opens package.yaml where the selection says: at the root
// of BaseLayer, or at the root of the flattened filesystem of Layers. The file
// is streamed out of its layer and verified as it is read (see oci.File);
// the caller reads it to the end (a verification failure is returned instead
// of io.EOF) and closes it. It sets Facts.PackageYAMLPath (the name as
// written, "package.yaml" or "./package.yaml"), Facts.Flattened and
// PackageLayer.
//
// Only the layers that decide are read. When there is no package.yaml at the
// root, OpenPackageYAML walks the selected layers once more to explain why:
// it records the files named package.yaml below the root
// (Facts.MisplacedPackageYAML, e.g. "package/package.yaml") and the defunct
// stack layout (Facts.LegacyStack, when .registry/app.yaml is present), and
// returns an error matching ErrNoPackageYAML (and oci.ErrNotFound). Other
// errors are those of oci.ReadFile and oci.ReadLayerFile. Options:
// WithLimits.
func (s *Selection) OpenPackageYAML(ctx context.Context, f oci.Fetcher, opts ...Option) (*oci.File, error) {
	c := newOpenConfig(opts)
	var (
		file *oci.File
		err  error
	)
	if s.BaseLayer != nil {
		file, err = oci.ReadLayerFile(ctx, f, *s.BaseLayer, PackageFile, c.ociOptions()...)
	} else {
		file, err = oci.ReadFile(ctx, f, s.Layers, PackageFile, c.ociOptions()...)
	}
	switch {
	case err == nil:
		s.Facts.PackageYAMLPath = file.Header.Name
		s.Facts.Flattened = s.BaseLayer == nil
		layer := file.Layer
		s.PackageLayer = &layer
		return file, nil
	case !errors.Is(err, oci.ErrNotFound):
		return nil, err
	}
	if serr := s.scan(ctx, f, c); serr != nil {
		return nil, errors.Join(fmt.Errorf("%w: %w", ErrNoPackageYAML, err), serr)
	}
	return nil, fmt.Errorf("%w%s: %w", ErrNoPackageYAML, s.explain(), err)
}

// explain says what the scan found, for the error message.
func (s *Selection) explain() string {
	var parts []string
	if len(s.Facts.MisplacedPackageYAML) > 0 {
		parts = append(parts, "found "+strings.Join(s.Facts.MisplacedPackageYAML, ", ")+" below the root")
	}
	if s.Facts.LegacyStack {
		parts = append(parts, "found "+s.Facts.LegacyStackPath+": the image is a defunct Crossplane stack")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// scan walks the selected layers for misplaced package.yaml files and the
// stack layout. Whiteouts are not applied: the result explains a missing
// package.yaml, it does not describe the filesystem.
func (s *Selection) scan(ctx context.Context, f oci.Fetcher, c *openConfig) error {
	seen := map[string]bool{}
	for _, l := range s.Layers {
		err := oci.WalkLayer(ctx, f, l, func(hdr *tar.Header, _ io.Reader) error {
			name, ok := tarpath.Clean(hdr.Name)
			if !ok || hdr.Typeflag != tar.TypeReg {
				return nil
			}
			switch {
			case name == legacyStackFile:
				s.Facts.LegacyStack = true
				s.Facts.LegacyStackPath = name
			case name != PackageFile && path.Base(name) == PackageFile && !seen[name]:
				seen[name] = true
				if len(s.Facts.MisplacedPackageYAML) < maxMisplaced {
					s.Facts.MisplacedPackageYAML = append(s.Facts.MisplacedPackageYAML, name)
				}
			}
			return nil
		}, c.ociOptions()...)
		if err != nil {
			return err
		}
	}
	return nil
}
