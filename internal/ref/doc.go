// Package ref parses the package references found in Crossplane packages
// (dependency packages, controller images) and checks dependency versions.
//
// A reference has the form
//
//	[registry[:port]/]repository[:tag][@algorithm:hex]
//
// where the first path component is a registry host only when it contains a
// '.' or a ':' or is "localhost", as the OCI distribution tooling decides.
// Crossplane v2 assumes no default registry, so a dependency must name its
// registry; CheckDependency reports one that does not.
//
// The package is internal; the xpkg package re-exports what users need.
package ref
