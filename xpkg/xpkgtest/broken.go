package xpkgtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// Broken names a deliberately broken package. Content variants (NoMeta,
// TwoMetas, BadCrossplaneConstraint) are wrong in their YAML and exist in
// every form, on-disk included (Package); image variants (TwoBaseLayers,
// DigestMismatch, MisplacedPackageYAML, LegacyStack) are wrong in their
// image and exist only as images (Image).
type Broken int

// The broken variants. Each is built from a valid Provider named after it
// (e.g. "provider-no-meta") that holds one CRD, unless it says otherwise.
const (
	// NoMeta has no meta object: package.yaml holds only the CRD, and the
	// on-disk form has no crossplane.yaml. Breaks: exactly one meta object.
	NoMeta Broken = iota + 1
	// TwoMetas has its Provider meta object twice. Breaks: exactly one meta
	// object.
	TwoMetas
	// BadCrossplaneConstraint has spec.crossplane.version "not-a-version",
	// which is not a semantic version constraint. Breaks: the Crossplane
	// version constraint.
	BadCrossplaneConstraint
	// TwoBaseLayers has two layers annotated io.crossplane.xpkg=base (in the
	// manifest and in the config labels), each holding a valid package.yaml
	// (of two different Providers). Breaks: at most one base layer; a reader
	// must not pick one.
	TwoBaseLayers
	// DigestMismatch has a base layer whose blob does not match its digest
	// (one byte of the gzip header's timestamp differs; it still
	// decompresses to a valid package.yaml). In a layout the manifest names
	// the digest; in a .xpkg file, where there is no manifest, the layer's
	// file name (<hex>.tar.gz) and its config label do. Breaks: blob
	// verification.
	DigestMismatch
	// MisplacedPackageYAML has a base layer that holds package/package.yaml
	// (a valid one) and nothing at its root. Breaks: package.yaml at the
	// root of the base layer.
	MisplacedPackageYAML
	// LegacyStack is an image in the defunct v1 "stack" format: one layer,
	// without annotations or labels, holding .registry/app.yaml,
	// .registry/install.yaml and .registry/resources/widgets.crd.yaml, and
	// no package.yaml. Breaks: it is not a Crossplane package at all.
	LegacyStack
)

// BrokenVariants returns every broken variant, in declaration order.
func BrokenVariants() []Broken {
	return []Broken{NoMeta, TwoMetas, BadCrossplaneConstraint, TwoBaseLayers, DigestMismatch, MisplacedPackageYAML, LegacyStack}
}

var brokenNames = map[Broken]string{
	NoMeta:                  "no-meta",
	TwoMetas:                "two-metas",
	BadCrossplaneConstraint: "bad-crossplane-constraint",
	TwoBaseLayers:           "two-base-layers",
	DigestMismatch:          "digest-mismatch",
	MisplacedPackageYAML:    "misplaced-package-yaml",
	LegacyStack:             "legacy-stack",
}

// String returns the variant's name, e.g. "two-base-layers".
func (b Broken) String() string {
	if n, ok := brokenNames[b]; ok {
		return n
	}
	return fmt.Sprintf("Broken(%d)", int(b))
}

// base returns the valid Provider a variant starts from.
func (b Broken) base() *Package {
	return NewProvider("provider-"+b.String()).
		WithCrossplaneConstraint(">=v1.14.0").
		WithCRD("example.org", "Widget", "v1alpha1")
}

// Package returns the variant as a package fixture, and false for the image
// variants, which exist only as images.
func (b Broken) Package() (*Package, bool) {
	p := b.base()
	switch b {
	case NoMeta:
		p.noMeta = true
	case TwoMetas:
		p.extraMetas = 1
	case BadCrossplaneConstraint:
		p = p.WithCrossplaneConstraint("not-a-version")
	default:
		return nil, false
	}
	return p, true
}

// Image builds the variant's image.
func (b Broken) Image(ctx context.Context) (*Image, error) {
	if p, ok := b.Package(); ok {
		return p.Image(ctx)
	}
	p := b.base()
	name := p.Name()
	base := xpkg.AnnotationBase
	spec := ociwrite.Image{LabelAnnotations: []string{xpkg.AnnotationKey}}
	switch b {
	case TwoBaseLayers:
		other := NewProvider("provider-other").WithCRD("other.example.org", "Gadget")
		spec.Layers = []ociwrite.Layer{
			fileLayer(xpkg.PackageFile, p.YAML(), base),
			fileLayer(xpkg.PackageFile, other.YAML(), base),
		}
	case DigestMismatch:
		l := fileLayer(xpkg.PackageFile, p.YAML(), base)
		l.Corrupt = true
		spec.Layers = []ociwrite.Layer{l}
	case MisplacedPackageYAML:
		spec.Layers = []ociwrite.Layer{fileLayer("package/"+xpkg.PackageFile, p.YAML(), base)}
	case LegacyStack:
		tarData, err := ociwrite.TarFiles(
			ociwrite.File{Name: ".registry/app.yaml", Data: []byte(legacyApp)},
			ociwrite.File{Name: ".registry/install.yaml", Data: []byte(legacyInstall)},
			ociwrite.File{Name: ".registry/resources/widgets.crd.yaml", Data: p.objects[0]},
		)
		if err != nil {
			return nil, fmt.Errorf("xpkgtest: %w", err)
		}
		spec.Layers = []ociwrite.Layer{{Tar: tarData}}
	default:
		return nil, fmt.Errorf("xpkgtest: unknown broken variant %s", b)
	}
	return newImage(ctx, name, spec)
}

// MustImage is Image for tests: it fails tb when the image cannot be built.
func (b Broken) MustImage(tb testing.TB) *Image {
	tb.Helper()
	img, err := b.Image(tb.Context())
	if err != nil {
		tb.Fatalf("xpkgtest: building %s: %v", b, err)
	}
	return img
}

// The v1 stack metadata of LegacyStack, in the shape the defunct stack
// design describes.
const (
	legacyApp = `# Stack metadata (defunct v1 "stack" format).
title: Example Stack
overviewShort: A stack in the format Crossplane used before packages.
version: 0.0.1
maintainers:
- name: xpkgkit fixtures
  email: fixtures@example.org
license: Apache-2.0
dependsOn:
- crd: "widgets.example.org/v1alpha1"
permissionScope: Cluster
`
	legacyInstall = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: example-stack-controller
spec:
  selector:
    matchLabels:
      app: example-stack
  template:
    metadata:
      labels:
        app: example-stack
    spec:
      containers:
      - name: example-stack-controller
        image: example/stack-controller:v0.0.1
`
)
