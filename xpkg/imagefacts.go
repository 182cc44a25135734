package xpkg

// ImageFacts are what the layer selector learned about a package image
// while finding its package.yaml. The image rules (XP5xx, linter/rules)
// read them; they do not run when a Lint call has no facts
// (rules.WithImageFacts), as when a package.yaml is linted on its own.
//
// Image-level diagnostics (those of the XP5xx rules) are not about a line
// of YAML: their Position has Line 0, and File is the digest of the layer
// concerned when there is one (XP501), otherwise Source.
type ImageFacts struct {
	// Source names the image for diagnostics: a reference, or the path of a
	// .xpkg file or OCI layout. It may be empty.
	Source string `json:"source,omitempty"`
	// BaseLayers holds the digests of the layers annotated
	// io.crossplane.xpkg: base, in manifest order. More than one is an error
	// (XP501).
	BaseLayers []string `json:"baseLayers,omitempty"`
	// OtherLayers holds the layers annotated io.crossplane.xpkg with another
	// value (Crossplane writes "upbound" for its examples layer).
	OtherLayers []LayerFact `json:"otherLayers,omitempty"`
	// Flattened is true when no layer carries the base annotation and
	// package.yaml was read from the image's flattened filesystem (XP502).
	Flattened bool `json:"flattened,omitempty"`
	// PackageYAMLPath is the path package.yaml was found at ("package.yaml"
	// or "./package.yaml"); empty when there is none at the root.
	PackageYAMLPath string `json:"packageYAMLPath,omitempty"`
	// MisplacedPackageYAML lists files named package.yaml found below the
	// root, such as "a/package.yaml", which Crossplane ignores (XP503).
	MisplacedPackageYAML []string `json:"misplacedPackageYAML,omitempty"`
	// LegacyStack is true when the content has the defunct stack layout of
	// Crossplane's first package format (XP504).
	LegacyStack bool `json:"legacyStack,omitempty"`
	// LegacyStackPath is the file that gave the stack layout away, usually
	// ".registry/app.yaml".
	LegacyStackPath string `json:"legacyStackPath,omitempty"`
}

// LayerFact describes one annotated layer of an image.
type LayerFact struct {
	// Digest is the layer's digest, e.g. "sha256:...".
	Digest string `json:"digest"`
	// Annotation is the value of its io.crossplane.xpkg annotation.
	Annotation string `json:"annotation"`
}
