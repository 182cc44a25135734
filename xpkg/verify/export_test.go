package verify

// The media and predicate types the external tests build fixtures with.
const (
	BundleArtifactType      = bundleArtifactType
	CosignSignPredicateType = cosignSignPredicateType
)
