// Package v1alpha1 holds the v1alpha1 Go types of the meta.pkg.crossplane.io
// API: Provider and Configuration, as many published packages still declare
// them.
//
// At this version the objects have the same fields as at v1, so their specs
// are aliases of the v1 specs. Convert to v1 with meta.ToV1 in the parent
// package.
package v1alpha1
