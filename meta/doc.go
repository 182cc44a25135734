// Package meta is the version-independent view of Crossplane's package
// metadata, the meta.pkg.crossplane.io API: the Provider, Configuration or
// Function object that opens every package.
//
// The Go types of each API version live in the sub-packages [v1],
// [v1alpha1] and [v1beta1]. This package ties them together:
//
//   - [Pkg] is the interface every meta type of every version implements;
//     [KindOf] says which kind a Pkg is and [ToV1] converts it to v1.
//   - [NewScheme] returns a [runtime.Scheme] with every version registered,
//     under the default group or, with [WithGroup], under a fork's group.
//   - Constants name the annotations and capabilities Crossplane knows
//     ([KnownCapabilities] lists a kind's), and [CapabilitiesContain]
//     matches a capability the way Crossplane does.
//
// A meta document decodes by creating the object for its group, version and
// kind from the scheme and filling it from the document's map, for example
// with runtime.DefaultUnstructuredConverter; see the package example.
//
// [v1]: https://pkg.go.dev/github.com/xpkgkit/xpkgkit/meta/v1
// [v1alpha1]: https://pkg.go.dev/github.com/xpkgkit/xpkgkit/meta/v1alpha1
// [v1beta1]: https://pkg.go.dev/github.com/xpkgkit/xpkgkit/meta/v1beta1
// [runtime.Scheme]: https://pkg.go.dev/k8s.io/apimachinery/pkg/runtime#Scheme
package meta
