// Package v1beta1 holds the v1beta1 Go type of the meta.pkg.crossplane.io
// API: Function, the version at which Crossplane introduced function
// packages.
//
// At this version a Function has the same fields as at v1, so its spec is an
// alias of the v1 spec. Convert to v1 with meta.ToV1 in the parent package.
package v1beta1
