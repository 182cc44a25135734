package oci

// Bounds of File.Warnings, for the tests.
const (
	MaxWarnings    = maxWarnings
	MaxWarningPath = maxWarningPath
)
