package meta

// Annotations Crossplane and package registries read from a meta object's
// metadata.annotations.
const (
	// AnnotationMaintainer names who maintains the package, for example
	// "Crossplane Maintainers <info@crossplane.io>".
	AnnotationMaintainer = "meta.crossplane.io/maintainer"

	// AnnotationSource is where the package's source lives, for example
	// "github.com/crossplane-contrib/provider-helm".
	AnnotationSource = "meta.crossplane.io/source"

	// AnnotationLicense is the package's license, an SPDX identifier.
	AnnotationLicense = "meta.crossplane.io/license"

	// AnnotationDescription is a one-sentence description of the package.
	AnnotationDescription = "meta.crossplane.io/description"

	// AnnotationReadme is a longer description of the package, in Markdown.
	AnnotationReadme = "meta.crossplane.io/readme"
)
