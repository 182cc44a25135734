// Package v1 holds the v1 Go types of the meta.pkg.crossplane.io API: the
// Provider, Configuration and Function objects a package author writes in
// crossplane.yaml, which a built package carries as the first document of
// package.yaml.
//
// These are not Kubernetes custom resources: no API server stores them. They
// describe a package to whatever reads it (Crossplane's package manager, a
// registry, a linter).
//
// The types are registered with a [runtime.Scheme] by [AddToScheme], or by
// [AddToSchemeWithGroup] for a fork of Crossplane whose meta group differs.
// The version-independent view of every meta version, conversion to v1 and a
// ready scheme are in the parent package, github.com/xpkgkit/xpkgkit/meta.
//
// [runtime.Scheme]: https://pkg.go.dev/k8s.io/apimachinery/pkg/runtime#Scheme
package v1
