package oci

// Bounds of File.Warnings, for the tests.
const (
	MaxWarnings    = maxWarnings
	MaxWarningPath = maxWarningPath
)

// Docker media types, for the tests.
const (
	MediaTypeDockerManifest     = mediaTypeDockerManifest
	MediaTypeDockerManifestList = mediaTypeDockerManifestList
	MediaTypeDockerConfig       = mediaTypeDockerConfig
	MediaTypeDockerLayer        = mediaTypeDockerLayer
	MediaTypeDockerLayerTar     = mediaTypeDockerLayerTar
)

// OpenLayer opens a layer's decompressed stream, for the tests.
var OpenLayer = openLayer
