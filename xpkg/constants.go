package xpkg

import "github.com/opencontainers/go-digest"

// Names and values of the Crossplane package format.
const (
	// AnnotationKey is the layer annotation that says what a layer of a
	// package image holds.
	AnnotationKey = "io.crossplane.xpkg"
	// AnnotationBase is the AnnotationKey value of the layer that holds
	// PackageFile at its root. At most one layer of an image may carry it.
	AnnotationBase = "base"
	// AnnotationExamples is the AnnotationKey value the Crossplane CLI gives
	// its examples layer, which holds ExamplesFile. The value names the
	// vendor that introduced the layer, not its content.
	AnnotationExamples = "upbound"

	// PackageFile is the file of a package image's base layer that holds the
	// package's YAML stream.
	PackageFile = "package.yaml"
	// ExamplesDir is the directory of the on-disk format that holds
	// examples. Its YAML files are not part of the package; Build puts them
	// in the examples layer.
	ExamplesDir = "examples"
	// ExamplesFile is the file of the examples layer that holds the
	// examples' YAML stream.
	ExamplesFile = ".up/examples.yaml"
	// Extension is the file name extension of a package image written as a
	// docker archive, as the Crossplane CLI writes it.
	Extension = ".xpkg"
)

// labelPrefix starts the image config labels that record layer annotations
// in formats that drop them (a docker archive). See LayerLabel.
const labelPrefix = AnnotationKey + ":"

// LayerLabel returns the image config label that records the AnnotationKey
// value of the layer with digest layer in formats that drop layer
// annotations (a docker archive): "io.crossplane.xpkg:sha256:<hex>".
func LayerLabel(layer digest.Digest) string {
	return labelPrefix + layer.String()
}
