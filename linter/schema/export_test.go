package schema

// KindsOf returns the releases PackageKinds' schemas come from.
func KindsOf() kindsVersions { return kindsReleases() }
